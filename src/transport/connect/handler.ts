import { create, toBinary, toJsonString, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes, parseContentType, parseTimeout } from "@connectrpc/connect/protocol-connect";
import { atTurnEnd } from "../../turn-end.js";
import { decodeProtoBinary } from "../binary-check.js";
import { decodeProtoJson } from "../json-check.js";
import { readBody, type ExchangeRequest, type ExchangeResponse } from "../exchange.js";
import type { Operation } from "../../services/operation.js";
import type { Invocation, Invoke } from "../pipeline.js";
import { REQUEST_ID_HEADER } from "../request-id.js";
import { operationsByPath, UnaryCall } from "../unary-call.js";
import { rpcFailureOf, toConnectError } from "../rpc-error.js";
import type { RequestDone } from "../../observability/request-observer.js";
import type { RequestTallies, RouteTally, TransportName } from "../../observability/route-tally.js";

type Codec = "json" | "proto";

/** Answers a Connect request and returns true, or returns false to leave it to connect-node. */
export type ConnectUnaryHandler = (req: ExchangeRequest, res: ExchangeResponse) => boolean;

/**
 * The Connect protocol's unary POST, the common case, served straight through the pipeline: the body is the message,
 * the answer is the message or the error JSON with its HTTP status. What this leaves to connect-node (same port,
 * same operations): compressed bodies, GET requests, streaming, other protocol versions and content types.
 * Decoding and errors follow connect-node's: unknown JSON fields are ignored, error details are sent as
 * `{type, value, debug}`. Each answer is reported to `done` under `transport` (default `connect`).
 */
export function createConnectUnaryHandler(options: {
  operations: Operation[];
  invoke: Invoke;
  maxBytes: number;
  tallies: RequestTallies;
  done: RequestDone;
  transport?: TransportName;
}): ConnectUnaryHandler {
  const byPath = operationsByPath(options.operations);
  const tallyOf = new Map(options.operations.map((op) => [op, options.tallies.of(options.transport ?? "connect", op.method)]));

  return function handleConnectUnary(req, res) {
    if (req.method !== "POST") return false;
    const operation = byPath.get(req.url ?? "");
    const codec = codecOf(req.headers["content-type"]);
    const encoding = req.headers["content-encoding"];
    const version = req.headers["connect-protocol-version"];
    if (!operation || !codec || (encoding !== undefined && encoding !== "identity") || (version !== undefined && version !== "1")) {
      return false;
    }
    const timeout = parseTimeout((req.headers["connect-timeout-ms"] as string | undefined) ?? null, Number.MAX_SAFE_INTEGER);
    const call = new ConnectCall(res, operation, codec, req.headers.authorization, tallyOf.get(operation) as RouteTally, options.done);
    void call.run(req, options, timeout);
    return true;
  };
}

/** A unary content type by connect's parser: `application/json` (`; charset=utf-8` allowed) or `application/proto`. */
function codecOf(contentType: string | undefined): Codec | undefined {
  const parsed = parseContentType(contentType ?? null);
  if (parsed === undefined || parsed.stream) return undefined;
  return parsed.binary ? "proto" : "json";
}

/** One unary Connect call, on the steps every RPC call shares (unary-call.ts: request id, deadline, finish once). */
class ConnectCall extends UnaryCall implements Invocation {
  private body: Buffer | undefined;
  origin: ExchangeRequest | undefined;

  constructor(
    private readonly res: ExchangeResponse,
    private readonly operation: Operation,
    private readonly codec: Codec,
    readonly authorization: string | undefined,
    private readonly tally: RouteTally,
    private readonly observe: RequestDone,
  ) {
    super();
  }

  async run(req: ExchangeRequest, options: { invoke: Invoke; maxBytes: number }, timeout: ReturnType<typeof parseTimeout>): Promise<void> {
    try {
      if (timeout.error) throw timeout.error;
      if (timeout.timeoutMs !== undefined) this.armDeadline(timeout.timeoutMs);
      this.origin = req;
      this.body = await readBody(req, options.maxBytes);
      const output = await options.invoke(this.operation, this);
      this.succeed(output);
    } catch (error) {
      this.fail(error instanceof ConnectError ? error : toConnectError(rpcFailureOf(error)), error);
    }
  }

  /** The deadline's timer: answers DEADLINE_EXCEEDED unless the call has begun committing (its result answers then). */
  deadlineExpired(ms: number): void {
    this.fail(new ConnectError(`the deadline of ${ms} ms expired`, Code.DeadlineExceeded));
  }

  /** Called by the pipeline once the caller is authenticated. */
  decode(): MessageShape<DescMessage> {
    const schema = this.operation.method.input;
    const body = this.body as Buffer;
    if (this.codec === "proto") return decodeProtoBinary(schema, body);
    return decodeProtoJson(schema, body.toString("utf8"));
  }

  private succeed(output: object): void {
    if (!this.finishOnce(this.tally, this.observe, 0)) return;
    const schema = this.operation.method.output;
    const message = create(schema, output as never);
    const body = this.codec === "json" ? toJsonString(schema, message) : toBinary(schema, message);
    const contentType = this.codec === "json" ? "application/json" : "application/proto";
    this.send(200, contentType, body);
  }

  /** `cause`: what was thrown, when it is not `error` itself (for the request log). */
  private fail(error: ConnectError, cause: unknown = error): void {
    if (!this.finishOnce(this.tally, this.observe, error.code, cause)) return;
    this.send(codeToHttpStatus(error.code), "application/json", errorToJsonBytes(error, {}));
  }

  /** Written at the end of the turn with the other responses of this turn (see turn-end.ts). */
  private send(status: number, contentType: string, body: string | Uint8Array): void {
    const { res, requestId } = this;
    atTurnEnd("respond", () => {
      res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body), [REQUEST_ID_HEADER]: requestId });
      res.end(body);
    });
  }
}
