import { KeywardError } from "../../domain/errors.js";
import { readBody, type ExchangeRequest, type ExchangeResponse } from "../exchange.js";
import type { Invocation, Invoke } from "../pipeline.js";
import { REQUEST_ID_HEADER } from "../request-id.js";
import { UnaryCall } from "../unary-call.js";
import { atTurnEnd } from "../../turn-end.js";
import type { RequestDone } from "../../observability/request-observer.js";
import type { RequestTallies, RouteTally, TransportName } from "../../observability/route-tally.js";
import type { DialectMapping } from "./dialect-mapping.js";
import { restErrorBody, type Dialect } from "./errors.js";
import { toRestJson } from "./rest-json.js";
import { serveDocument, type ServedDocument } from "./documents.js";
import type { Route } from "./routes.js";
import { templateRoutes } from "./path-templates.js";
import { v1Mappings, v2Mappings } from "./v1-dialect.js";
import { v2Envelope, v2EnvelopeText } from "./v2-dialect.js";
import { decodeInput, isPlainObject, parseJson, queryToJson, requireJsonBody, splitUrl } from "./wire.js";

export const MAX_BODY_BYTES = 1024 * 1024;

type Request = ExchangeRequest;
type Response = ExchangeResponse;

/**
 * The REST entry: finds the route bound in the proto, decodes the dialect's input (JSON body, or query for GET),
 * runs the shared pipeline, and encodes the dialect's output or error. No business logic here. Each answer is
 * reported to `done` (metrics and the request log) under rest-v1, rest-v2, or http for a path outside both.
 */
export function createRestHandler(options: {
  routes: Route[];
  invoke: Invoke;
  docsUrl: string;
  tallies: RequestTallies;
  done: RequestDone;
  documents?: Map<string, ServedDocument>;
}) {
  const { tallies, done } = options;
  const byPath = new Map<string, Map<string, Route>>();
  for (const route of options.routes) {
    if (route.path.includes("{")) continue; // templated: matched below, after the exact paths
    const verbs = byPath.get(route.path) ?? new Map<string, Route>();
    verbs.set(route.verb, route);
    byPath.set(route.path, verbs);
  }

  const templates = templateRoutes(options.routes);
  // Every verb and path this router answers: the proto's bindings and the documents.
  const served = [
    ...options.routes.map((route) => ({ verb: route.verb as string, path: route.path })),
    ...[...(options.documents?.keys() ?? [])].map((path) => ({ verb: "GET", path })),
  ];
  return Object.assign(handle, { served });

  // The async frame holds only what crosses an await: the routing before and the answer after are plain functions.
  async function handle(req: Request, res: Response): Promise<void> {
    const call = new RestCall(req);
    try {
      const route = routeOf(call, req, res);
      if (route === undefined) return; // a document, served
      if (route.verb !== "GET") {
        requireJsonBody(req.headers);
        call.text = (await readBody(req, MAX_BODY_BYTES)).toString("utf8");
      }
      answer(call, res, route, await options.invoke(route.operation, call));
    } catch (error) {
      const known = error instanceof KeywardError ? error : INTERNAL_ERROR;
      const { status, body } = restErrorBody(call.dialect, known, { requestId: call.requestId, docsUrl: options.docsUrl, locationPrefix: call.prefix });
      call.send(res, status, body);
      call.finishOnce(call.tally, done, status, error);
    }
  }

  /**
   * The call's route, with its dialect, tally and (for a GET) query set on `call`; undefined once a document was
   * served. Throws the 404 or 405 of a path or verb no route answers.
   */
  function routeOf(call: RestCall, req: Request, res: Response): Route | undefined {
    const url = splitUrl(req.url ?? "/");
    const v1 = url.pathname.startsWith("/v1/");
    call.dialect = v1 ? "v1" : "v2";
    let verbs = byPath.get(url.pathname);
    // Path variables (legacy v1 routes such as /v1/apis/{apiId}/keys) fill input fields; exact paths never pay for it.
    if (!verbs && templates.length > 0) {
      for (const template of templates) {
        call.pathFields = template.match(url.pathname);
        if (call.pathFields) {
          verbs = template.verbs;
          break;
        }
      }
    }
    const route = verbs?.get(req.method ?? "");
    const transport: TransportName = v1 ? "rest-v1" : url.pathname.startsWith("/v2/") ? "rest-v2" : "http";
    call.tally = tallies.of(transport, route?.operation.method);
    if (!verbs) {
      // Off the hot path: only a path no RPC is bound to gets here.
      const document = options.documents?.get(url.pathname);
      if (document) return void serveDocument(req, res, document, call.requestId);
      throw new KeywardError("not_found", `No route ${req.method} ${url.pathname}.`);
    }
    if (!route) {
      res.setHeader("allow", [...verbs.keys()].join(", "));
      throw new KeywardError("method_not_allowed", `${req.method} is not allowed on ${url.pathname}; use ${[...verbs.keys()].join(" or ")}.`);
    }
    call.route = route;
    call.mapping = (route.dialect === "v1" ? v1Mappings : v2Mappings)[route.path];
    // The body is read (and its size enforced) next, but parsed only inside `decode`, which the pipeline calls
    // after authentication: a request without a valid root key gets 401 whatever its body.
    if (route.verb === "GET") {
      call.prefix = "query";
      call.query = queryToJson(route.operation.method.input, new URLSearchParams(url.search));
    }
    return route;
  }

  /** The dialect's success answer for the operation's output. */
  function answer(call: RestCall, res: Response, route: Route, output: unknown): void {
    const { mapping } = call;
    const status = mapping?.status ?? 200;
    const schema = route.operation.method.output;
    // A v2 answer that is the output's proto JSON unchanged (every verification but NOT_FOUND) is written as text
    // from the output: no JSON object made and walked again.
    if (route.dialect === "v2" && !route.responseField && (!mapping?.response || mapping.responseOnly?.(output as never) === false)) {
      const text = v2EnvelopeText(schema, output as object, call.requestId);
      if (text !== undefined) {
        call.sendText(res, status, text);
        call.finishOnce(call.tally, done, status);
        return;
      }
    }
    const full = toRestJson(schema, output as never);
    const json = route.responseField ? ((full[route.responseField] ?? {}) as Record<string, unknown>) : full;
    const mapped = mapping?.response ? (mapping.response(json, full) as Record<string, unknown>) : json;
    const body = route.dialect === "v1"
      ? mapped
      : route.responseField ? { meta: { requestId: call.requestId }, data: mapped } : v2Envelope(schema, mapped, call.requestId);
    call.send(res, status, body);
    call.finishOnce(call.tally, done, status);
  }
}

/**
 * One REST call, on the steps every entry shares (unary-call.ts: request id, start time, finish once), and the
 * pipeline's Invocation: what `decode` needs is kept on the call, so a request allocates no closure for it.
 */
class RestCall extends UnaryCall implements Invocation {
  readonly authorization: string | undefined;
  /** The error dialect: v1 under /v1/, else v2. */
  dialect: Dialect = "v2";
  /** Where the answer is counted; set before anything can fail. */
  tally!: RouteTally;
  route: Route | undefined;
  mapping: DialectMapping | undefined;
  /** Where input errors point: the JSON body, or the query of a GET. */
  prefix = "body";
  query: Record<string, unknown> | undefined;
  text = "";
  pathFields: Record<string, string> | undefined;

  constructor(readonly origin: Request) {
    super();
    this.authorization = origin.headers.authorization;
  }

  /** The answer, serialised now and written at the end of the turn with the other responses of this turn. */
  private res: Response | undefined;
  private status = 0;
  private answer = "";
  private answerBytes = 0;

  send(res: Response, status: number, body: unknown): void {
    this.sendText(res, status, JSON.stringify(body));
  }

  /** `send` of a body already in JSON text. */
  sendText(res: Response, status: number, text: string): void {
    this.res = res;
    this.status = status;
    this.answer = text;
    // Measured now, not when written: measuring flattens a text built piece by piece, and the pieces then die
    // before the turn's end instead of surviving a scavenge that comes meanwhile with every answer still waiting.
    this.answerBytes = Buffer.byteLength(text);
    atTurnEnd("respond", writeResponse, this);
  }

  /** Called at the turn's end, with the other responses of the turn (see turn-end.ts). */
  writeResponse(): void {
    const res = this.res!;
    const text = this.answer;
    res.writeHead(this.status, { "content-type": "application/json", "content-length": this.answerBytes, [REQUEST_ID_HEADER]: this.requestId });
    res.end(text);
  }

  /** Called by the pipeline once the caller is authenticated. */
  decode() {
    const route = this.route as Route;
    const parsed = this.query ?? parseJson(this.text);
    const raw = this.pathFields && isPlainObject(parsed) ? { ...parsed, ...this.pathFields } : parsed;
    const input = this.mapping?.request ? this.mapping.request(raw) : raw;
    return decodeInput(route.operation.method.input, input, { allowUnknown: route.dialect === "v1", prefix: this.prefix });
  }
}

// What an unexpected error answers: nothing of its text, which may hold anything. The request log has its stack.
const INTERNAL_ERROR = new KeywardError("internal", "An internal error occurred; the request id identifies it in the logs.");

function writeResponse(call: RestCall): void {
  call.writeResponse();
}
