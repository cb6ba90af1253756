import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { invalid, KeywardError } from "../../domain/errors.js";
import { readBody, type ExchangeRequest, type ExchangeResponse } from "../exchange.js";
import type { Invocation, Invoke } from "../pipeline.js";
import { REQUEST_ID_HEADER } from "../request-id.js";
import { UnaryCall } from "../unary-call.js";
import { atTurnEnd } from "../../turn-end.js";
import type { RequestDone } from "../../observability/request-observer.js";
import type { RequestTallies, TransportName } from "../../observability/route-tally.js";
import type { DialectMapping } from "./dialect-mapping.js";
import { restErrorBody, type Dialect } from "./errors.js";
import { decodeCheckedJson } from "../json-check.js";
import { toRestJson } from "./rest-json.js";
import { serveDocument, type ServedDocument } from "./documents.js";
import type { Route } from "./routes.js";
import { templateRoutes } from "./path-templates.js";
import { v1Mappings, v2Mappings } from "./v1-dialect.js";
import { v2Envelope } from "./v2-dialect.js";

export const MAX_BODY_BYTES = 1024 * 1024;

type Request = ExchangeRequest;
type Response = ExchangeResponse;

/**
 * The REST entry: finds the route bound in the proto, decodes the dialect's input (JSON body, or query for GET),
 * runs the shared pipeline, and encodes the dialect's output or error. No business logic here. Each answer is
 * reported to `done` (metrics and the request log) under rest-v1, rest-v2, or http for a path outside both.
 */
export function createRestRouter(options: {
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

  async function handle(req: Request, res: Response): Promise<void> {
    const call = new RestCall(req);
    const requestId = call.requestId;
    const url = splitUrl(req.url ?? "/");
    const dialect: Dialect = url.pathname.startsWith("/v1/") ? "v1" : "v2";
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
    const transport: TransportName = dialect === "v1" ? "rest-v1" : url.pathname.startsWith("/v2/") ? "rest-v2" : "http";
    const tally = tallies.of(transport, route?.operation.method);
    try {
      if (!verbs) {
        // Off the hot path: only a path no RPC is bound to gets here.
        const document = options.documents?.get(url.pathname);
        if (document) return serveDocument(req, res, document, requestId);
        throw new KeywardError("not_found", `No route ${req.method} ${url.pathname}.`);
      }
      if (!route) {
        res.setHeader("allow", [...verbs.keys()].join(", "));
        throw new KeywardError("method_not_allowed", `${req.method} is not allowed on ${url.pathname}; use ${[...verbs.keys()].join(" or ")}.`);
      }
      const mapping = (route.dialect === "v1" ? v1Mappings : v2Mappings)[route.path];
      call.route = route;
      call.mapping = mapping;
      // The body is read (and its size enforced) now, but parsed only inside `decode`, which the pipeline calls
      // after authentication: a request without a valid root key gets 401 whatever its body.
      if (route.verb === "GET") {
        call.prefix = "query";
        call.query = queryToJson(route.operation.method.input, new URLSearchParams(url.search));
      } else {
        requireJsonBody(req.headers);
        call.text = (await readBody(req, MAX_BODY_BYTES)).toString("utf8");
      }
      const output = await options.invoke(route.operation, call);
      const full = toRestJson(route.operation.method.output, output as never);
      const json = route.responseField ? ((full[route.responseField] ?? {}) as Record<string, unknown>) : full;
      const mapped = mapping?.response ? (mapping.response(json, full) as Record<string, unknown>) : json;
      const body = route.dialect === "v1"
        ? mapped
        : route.responseField ? { meta: { requestId }, data: mapped } : v2Envelope(route.operation.method.output, mapped, requestId);
      const status = mapping?.status ?? 200;
      send(res, status, body, requestId);
      call.finishOnce(tally, done, status);
    } catch (error) {
      const known = error instanceof KeywardError ? error : INTERNAL_ERROR;
      const { status, body } = restErrorBody(dialect, known, { requestId, docsUrl: options.docsUrl, locationPrefix: call.prefix });
      send(res, status, body, requestId);
      call.finishOnce(tally, done, status, error);
    }
  }
}

/**
 * One REST call, on the steps every entry shares (unary-call.ts: request id, start time, finish once), and the
 * pipeline's Invocation: what `decode` needs is kept on the call, so a request allocates no closure for it.
 */
class RestCall extends UnaryCall implements Invocation {
  readonly authorization: string | undefined;
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

  /** Called by the pipeline once the caller is authenticated. */
  decode() {
    const route = this.route as Route;
    const parsed = this.query ?? parseJson(this.text);
    const raw = this.pathFields && isPlainObject(parsed) ? { ...parsed, ...this.pathFields } : parsed;
    const input = this.mapping?.request ? this.mapping.request(raw) : raw;
    return decodeInput(route.operation.method.input, input, { allowUnknown: route.dialect === "v1", prefix: this.prefix });
  }
}

/** Path and query of a request target; cheaper than `new URL` for the common POST without a query. */
function splitUrl(target: string): { pathname: string; search: string } {
  const at = target.indexOf("?");
  if (at === -1) return { pathname: target, search: "" };
  return { pathname: target.slice(0, at), search: target.slice(at + 1) };
}

function decodeInput(schema: DescMessage, input: unknown, options: { allowUnknown: boolean; prefix: string }) {
  return decodeCheckedJson(schema, withUpdateMask(schema, input), {
    allowUnknown: options.allowUnknown, prefix: "", dialect: "rest",
    name: (location) => `${options.prefix}${location ? "." + location : ""}`,
  });
}

/**
 * REST bodies are JSON: a declared media type other than JSON (`application/json`, `+json` types) or a
 * `Content-Encoding` other than identity is refused with 415 rather than read as JSON. A body with no content type
 * at all is read as JSON, as simple clients send it.
 */
function requireJsonBody(headers: Request["headers"]): void {
  const type = headers["content-type"];
  if (type !== undefined) {
    const media = type.split(";", 1)[0].trim().toLowerCase();
    if (media !== "application/json" && !(media.startsWith("application/") && media.endsWith("+json"))) {
      throw new KeywardError("unsupported_media_type", `Content-Type ${media || "(empty)"} is not supported; send application/json.`);
    }
  }
  const encoding = headers["content-encoding"];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    throw new KeywardError("unsupported_media_type", `Content-Encoding ${encoding} is not supported; send the body uncompressed.`);
  }
}

/**
 * For a request with an `update_mask` (AIP-134), REST derives the mask from the body: every field present is
 * listed, nested messages by their present sub-fields (`{"credits":{"refill":null}}` → `credits.refill`), and a
 * null is dropped from the body so the listed field reads as unset, i.e. cleared. Elsewhere null means absent.
 */
function withUpdateMask(schema: DescMessage, input: unknown): unknown {
  const maskField = schema.fields.find((f) => f.name === "update_mask" && f.message?.typeName === "google.protobuf.FieldMask");
  if (!maskField || !isPlainObject(input) || maskField.jsonName in input) return input;
  const paths: string[] = [];
  const collect = (value: Record<string, unknown>, message: DescMessage, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const field = message.fields.find((f) => f.jsonName === key || f.name === key);
      if (!field) {
        out[key] = item; // left for the unknown-field check
        continue;
      }
      const nested = field.fieldKind === "message" && !field.message.typeName.startsWith("google.protobuf.");
      if (nested && isPlainObject(item) && Object.keys(item).length > 0) {
        out[key] = collect(item, field.message, `${prefix}${field.name}.`);
        continue;
      }
      paths.push(prefix + field.name);
      if (item !== null) out[key] = item;
    }
    return out;
  };
  const body = collect(input, schema, "");
  // FieldMask JSON is comma-separated lowerCamelCase paths.
  body[maskField.jsonName] = paths.map((p) => p.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())).join(",");
  return body;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Query parameters as the JSON object of the input message: integers and booleans converted by field type. */
function queryToJson(schema: DescMessage, params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) continue; // v1 tolerates unknown query parameters
    const values = params.getAll(key);
    out[key] = field.fieldKind === "list" ? values.map((v) => fromQuery(field, v)) : fromQuery(field, values[values.length - 1]);
  }
  return out;
}

function fromQuery(field: DescField, raw: string): unknown {
  const scalar = field.fieldKind === "scalar" || field.fieldKind === "list" ? field.scalar : undefined;
  if (scalar === undefined) return raw;
  if (scalar === 8 /* BOOL */) return raw === "true" ? true : raw === "false" ? false : raw;
  if (scalar === 9 /* STRING */ || scalar === 12 /* BYTES */) return raw;
  return /^-?\d+$/.test(raw) ? Number(raw) : raw;
}

function parseJson(text: string): unknown {
  if (text.trim() === "") throw invalid("The request body is empty; send a JSON object.", [{ location: "", message: "empty body" }]);
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message;
    throw invalid(`The request body is not valid JSON: ${detail}`, [{ location: "", message: detail }]);
  }
}

// What an unexpected error answers: nothing of its text, which may hold anything. The request log has its stack.
const INTERNAL_ERROR = new KeywardError("internal", "An internal error occurred; the request id identifies it in the logs.");

/** Serialises now; writes at the end of the turn with the other responses of this turn (see turn-end.ts). */
function send(res: Response, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body);
  atTurnEnd("respond", () => writeResponse(res, status, text, requestId));
}

function writeResponse(res: Response, status: number, text: string, requestId: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), [REQUEST_ID_HEADER]: requestId });
  res.end(text);
}
