import { sensitiveHeaders, type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { create, toBinary, toJsonString, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { decodeProtoJson } from "../json-check.js";
import { decodeProtoBinary } from "../binary-check.js";
import type { Operation } from "../../services/operation.js";
import type { Invocation, Invoke } from "../pipeline.js";
import type { RequestOrigin } from "../../services/context.js";
import { REQUEST_ID_HEADER } from "../request-id.js";
import { operationsByPath, UnaryCall } from "../unary-call.js";
import { rpcFailureOf, type RpcFailure } from "../rpc-error.js";
import type { RequestDone } from "../../observability/request-observer.js";
import type { RequestTallies } from "../../observability/route-tally.js";
import { frame, frameInPlace, FRAME_HEADER_BYTES, unframeUnary, type Encoding } from "../envelope.js";
import { fastCodecOf } from "../fast-codecs.js";
import { ACCEPTED_ENCODINGS, failureTrailers, grpcCodecOf, grpcTimeoutOf, responseEncodingOf } from "./wire.js";

/** Answers a gRPC stream and returns true, or returns false to leave it to the next handler (connect-node). */
export type GrpcStreamHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

type Codec = "proto" | "json";

const OK_TRAILERS = { "grpc-status": "0" };
// Every response carries a fresh request id. HPACK would add each one to the connection's header table, evicting
// the entries that do repeat; marked never-indexed it is sent as a plain literal (measured: ~8 µs less per call).
const NOT_INDEXED = [REQUEST_ID_HEADER];
const CALL = Symbol("keyward.grpc.call");
// Options objects shared by every call rather than made per stream.
const RESPOND_WITH_TRAILERS = { waitForTrailers: true };
const RESPOND_AND_END = { endStream: true };
// The answer's bytes in a pooled Buffer: cheaper than a fresh Uint8Array, and what the stream writes without wrapping.
const allocate = (size: number): Uint8Array => Buffer.allocUnsafe(size);

/** Whether a request speaks gRPC over HTTP/2 (not gRPC-Web, which connect-node serves). */
export function isGrpcRequest(headers: IncomingHttpHeaders): boolean {
  const type = headers["content-type"];
  return type !== undefined && type.startsWith("application/grpc") && !type.startsWith("application/grpc-web");
}

/**
 * The unary gRPC server: reads the one message straight off the HTTP/2 stream, runs the shared pipeline and writes
 * message and trailers, with no per-call machinery beyond that. Paths in `passThrough` (streaming RPCs, health) are
 * left to connect-node; any other unknown path answers UNIMPLEMENTED, as gRPC clients expect. Each answer is
 * reported to `done` under the `grpc` transport.
 */
export function createGrpcHandler(options: {
  operations: Operation[];
  invoke: Invoke;
  passThrough: Set<string>;
  maxBytes: number;
  tallies: RequestTallies;
  done: RequestDone;
}): GrpcStreamHandler {
  const byPath = operationsByPath(options.operations);

  return function handleGrpc(stream, headers) {
    const path = headers[":path"] ?? "";
    if (options.passThrough.has(path)) return false;
    const call = new GrpcCall(stream, headers, options);
    const operation = byPath.get(path);
    if (!operation) return call.fail(Code.Unimplemented, `unknown method ${path}`);
    if (headers[":method"] !== "POST") return call.fail(Code.Unimplemented, `gRPC calls are POST, not ${headers[":method"]}`);
    if (call.codec === undefined) return call.fail(Code.Unimplemented, `unsupported content-type ${headers["content-type"]}`);
    const encoding = headers["grpc-encoding"] ?? "identity";
    if (encoding !== "identity" && encoding !== "gzip") {
      return call.fail(Code.Unimplemented, `unsupported grpc-encoding ${encoding}; this server accepts ${ACCEPTED_ENCODINGS}`);
    }
    const timeout = grpcTimeoutOf(headers["grpc-timeout"] as string | undefined);
    if (timeout.error) return call.fail(timeout.error.code, timeout.error.rawMessage);
    call.start(operation, encoding, timeout.ms);
    return true;
  };
}

/**
 * One unary gRPC call, on the steps every RPC call shares (unary-call.ts: request id, deadline, finish once). The
 * call is the pipeline's Invocation and the stream's listeners reach it through the stream, so a call allocates no
 * closures.
 */
class GrpcCall extends UnaryCall implements Invocation {
  readonly authorization: string | undefined;
  readonly codec: Codec | undefined;
  private operation: Operation | undefined;
  private requestEncoding: Encoding = "identity";
  private message: Uint8Array | undefined;
  // A unary request nearly always arrives in one DATA frame: the array for more is made only when needed.
  private chunk: Buffer | undefined;
  private chunks: Buffer[] | undefined;
  private size = 0;

  constructor(
    private readonly stream: ServerHttp2Stream & { [CALL]?: GrpcCall },
    private readonly headers: IncomingHttpHeaders,
    private readonly options: { invoke: Invoke; maxBytes: number; tallies: RequestTallies; done: RequestDone },
  ) {
    super();
    this.authorization = headers.authorization;
    this.codec = codecOf(headers["content-type"]);
    stream[CALL] = this;
    // A client reset is no server error; the answer, if any, is simply dropped.
    stream.on("error", ignore);
  }

  /** Read only by audited operations: built on demand, never on the verification path. */
  get origin(): RequestOrigin {
    return { headers: this.headers, socket: this.stream.session?.socket };
  }

  start(operation: Operation, encoding: Encoding, deadlineMs: number | undefined): void {
    this.operation = operation;
    this.requestEncoding = encoding;
    if (deadlineMs !== undefined) this.armDeadline(deadlineMs);
    this.stream.on("data", onData);
    this.stream.on("end", onEnd);
  }

  received(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= this.options.maxBytes + 5) {
      if (this.chunk === undefined) this.chunk = chunk;
      else (this.chunks ??= [this.chunk]).push(chunk);
      return;
    }
    this.stream.off("data", onData);
    this.stream.off("end", onEnd);
    this.chunk = this.chunks = undefined;
    this.fail(Code.ResourceExhausted, `the request is larger than the limit of ${this.options.maxBytes} bytes`);
  }

  ended(): void {
    const body = this.chunks !== undefined ? Buffer.concat(this.chunks, this.size) : this.chunk ?? EMPTY;
    this.chunk = this.chunks = undefined;
    const unframed = unframeUnary(body, { encoding: this.requestEncoding, maxBytes: this.options.maxBytes });
    // A malformed frame is the client's mistake, answered before authentication costs anything.
    if (!unframed.ok) return void this.fail(unframed.reason === "too_large" ? Code.ResourceExhausted : Code.InvalidArgument, unframed.detail);
    this.message = unframed.message;
    void this.run(this.operation as Operation);
  }

  private async run(operation: Operation): Promise<void> {
    try {
      const output = await this.options.invoke(operation, this);
      this.succeed(operation.method.output, output);
    } catch (error) {
      this.failWith(rpcFailureOf(error), error);
    }
  }

  /** Called by the pipeline once the caller is authenticated. */
  decode(): MessageShape<DescMessage> {
    const schema = (this.operation as Operation).method.input;
    const message = this.message as Uint8Array;
    return this.codec === "proto" ? decodeProtoBinary(schema, message) : decodeProtoJson(schema, Buffer.from(message).toString("utf8"));
  }

  private succeed(schema: DescMessage, output: object): void {
    if (!this.finish(0)) return;
    // Answer as the client asked: a gzip request gets a gzip response, when the client accepts gzip.
    const encoding = responseEncodingOf(this.requestEncoding, this.headers["grpc-accept-encoding"]);
    const body = this.encode(schema, output, encoding);
    const headers = this.responseHeaders();
    if (encoding === "gzip") headers["grpc-encoding"] = "gzip";
    this.stream.respond(headers, RESPOND_WITH_TRAILERS);
    // Emitted once per stream, so a plain listener does what `once` would without its wrapper.
    this.stream.on("wantTrailers", sendOkTrailers);
    this.stream.end(body);
  }

  /**
   * The answer's frame. A message type with a generated codec is encoded from the handler's init object straight
   * behind its frame header (same bytes as create + toBinary + frame, without the message or the copies).
   */
  private encode(schema: DescMessage, output: object, encoding: Encoding): Uint8Array {
    const fast = this.codec === "proto" ? fastCodecOf(schema) : undefined;
    if (fast !== undefined && encoding === "identity") return frameInPlace(fast.encode(output, FRAME_HEADER_BYTES, allocate));
    if (fast !== undefined) return frame(fast.encode(output), encoding);
    const message = create(schema, output as never);
    const bytes = this.codec === "json" ? Buffer.from(toJsonString(schema, message)) : toBinary(schema, message);
    return frame(bytes, encoding);
  }

  /** Answers `code`; returns true, so the dispatcher can return it as "handled". */
  fail(code: Code, message: string): true {
    this.failWith({ code, message });
    return true;
  }

  /** A trailers-only response: status and message in the one HEADERS frame, as gRPC does for errors. */
  private failWith(failure: RpcFailure, cause?: unknown): void {
    if (!this.finish(failure.code, cause)) return;
    const headers = { ...this.responseHeaders(), ...failureTrailers(failure) };
    // Whatever the client still sends is read and dropped (h2-upload.ts, discardRestOfUpload), not reset.
    this.stream.respond(headers, RESPOND_AND_END);
  }

  deadlineExpired(ms: number): void {
    this.fail(Code.DeadlineExceeded, `the deadline of ${ms} ms expired`);
  }

  /** True exactly once, and only while the stream can still carry an answer. Reports the answer (`code`) once. */
  private finish(code: number, cause?: unknown): boolean {
    if (!this.finishOnce(this.options.tallies.of("grpc", this.operation?.method), this.options.done, code, cause)) return false;
    return !this.stream.destroyed && !this.stream.closed;
  }

  private responseHeaders(): OutgoingHttpHeaders {
    return {
      ":status": 200,
      "content-type": this.codec === "json" ? "application/grpc+json" : "application/grpc",
      "grpc-accept-encoding": ACCEPTED_ENCODINGS,
      [REQUEST_ID_HEADER]: this.requestId,
      [sensitiveHeaders]: NOT_INDEXED,
    };
  }
}

// Listeners shared by every call: `this` is the stream, which holds its call.
function onData(this: ServerHttp2Stream & { [CALL]: GrpcCall }, chunk: Buffer): void {
  this[CALL].received(chunk);
}

function onEnd(this: ServerHttp2Stream & { [CALL]: GrpcCall }): void {
  this[CALL].ended();
}

function sendOkTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers(OK_TRAILERS);
}

function ignore(): void {}

const EMPTY = Buffer.alloc(0);

const codecByContentType = new Map<string, Codec | undefined>();

/**
 * grpcCodecOf, remembered per content type: clients send one of a handful, and parsing it made a match array per call.
 * The memory is capped so that odd values from clients cannot grow it.
 */
function codecOf(contentType: string | undefined): Codec | undefined {
  if (contentType === undefined) return grpcCodecOf(contentType);
  let codec = codecByContentType.get(contentType);
  if (codec === undefined && !codecByContentType.has(contentType)) {
    codec = grpcCodecOf(contentType);
    if (codecByContentType.size < 64) codecByContentType.set(contentType, codec);
  }
  return codec;
}
