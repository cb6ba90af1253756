import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { constants } from "node:http2";
import { create, fromBinary, fromJsonString, toBinary, toJsonString, type DescMessage } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { invalid } from "../../domain/errors.js";
import type { Invoke, Operation } from "../pipeline.js";
import { newRequestId, REQUEST_ID_HEADER } from "../request-id.js";
import { rpcFailureOf, statusDetailsOf, type RpcFailure } from "../rpc-error.js";
import { ACCEPTED_ENCODINGS, encodeGrpcMessage, frame, parseTimeout, unframeUnary, type Encoding } from "./wire.js";

/** Answers a gRPC stream and returns true, or returns false to leave it to the next handler (connect-node). */
export type GrpcStreamHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

type Codec = "proto" | "json";
const CODECS: Record<string, Codec> = { "application/grpc": "proto", "application/grpc+proto": "proto", "application/grpc+json": "json" };

// setTimeout's ceiling; a longer deadline is as good as none.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether a request speaks gRPC over HTTP/2 (not gRPC-Web, which connect-node serves). */
export function isGrpcRequest(headers: IncomingHttpHeaders): boolean {
  const type = headers["content-type"];
  return type !== undefined && type.startsWith("application/grpc") && !type.startsWith("application/grpc-web");
}

/**
 * The unary gRPC server: reads the one message straight off the HTTP/2 stream, runs the shared pipeline and writes
 * message and trailers, with no per-call machinery beyond that. Paths in `passThrough` (streaming RPCs, health) are
 * left to connect-node; any other unknown path answers UNIMPLEMENTED, as gRPC clients expect.
 */
export function createGrpcHandler(options: { operations: Operation[]; invoke: Invoke; passThrough: Set<string>; maxBytes: number }): GrpcStreamHandler {
  const byPath = new Map(options.operations.map((op) => [`/${op.method.parent.typeName}/${op.method.name}`, op]));

  return function handleGrpc(stream, headers) {
    const path = headers[":path"] ?? "";
    if (options.passThrough.has(path)) return false;
    const call = new UnaryCall(stream, headers);
    const operation = byPath.get(path);
    if (!operation) return call.fail(Code.Unimplemented, `unknown method ${path}`), true;
    if (headers[":method"] !== "POST") return call.fail(Code.Unimplemented, `gRPC calls are POST, not ${headers[":method"]}`), true;
    if (call.codec === undefined) return call.fail(Code.Unimplemented, `unsupported content-type ${headers["content-type"]}`), true;
    const requestEncoding = headers["grpc-encoding"] ?? "identity";
    if (requestEncoding !== "identity" && requestEncoding !== "gzip") {
      return call.fail(Code.Unimplemented, `unsupported grpc-encoding ${requestEncoding}; this server accepts ${ACCEPTED_ENCODINGS}`), true;
    }
    const timeout = parseTimeout(headers["grpc-timeout"] as string | undefined);
    if (timeout.error) return call.fail(Code.InvalidArgument, timeout.error), true;
    if (timeout.ms !== undefined) call.setDeadline(timeout.ms);

    readBody(stream, options.maxBytes + 5, (body) => {
      if (body === undefined) return call.fail(Code.ResourceExhausted, `the request message exceeds the ${options.maxBytes}-byte limit`);
      const unframed = unframeUnary(body, { encoding: requestEncoding, maxBytes: options.maxBytes });
      if (!unframed.ok) return call.fail(unframed.reason === "too_large" ? Code.ResourceExhausted : Code.Internal, unframed.detail);
      // Answer as the client asked: a gzip request gets a gzip response, when the client accepts gzip.
      const accepts = headers["grpc-accept-encoding"];
      call.responseEncoding = requestEncoding === "gzip" && (accepts === undefined || accepts.includes("gzip")) ? "gzip" : "identity";
      call.run(operation, options.invoke, unframed.message);
    });
    return true;
  };
}

/** One unary call's state: its answer goes out once, whichever comes first of result, failure or deadline. */
class UnaryCall {
  readonly requestId = newRequestId();
  readonly codec: Codec | undefined;
  responseEncoding: Encoding = "identity";
  private done = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly stream: ServerHttp2Stream, private readonly headers: IncomingHttpHeaders) {
    this.codec = CODECS[headers["content-type"] ?? ""];
    // A client reset is no server error; the answer, if any, is simply dropped.
    stream.on("error", ignore);
  }

  setDeadline(ms: number): void {
    if (ms > MAX_TIMER_MS) return;
    this.timer = setTimeout(() => this.fail(Code.DeadlineExceeded, `the deadline of ${ms} ms expired`), ms);
  }

  run(operation: Operation, invoke: Invoke, message: Uint8Array): void {
    const input = operation.method.input;
    invoke(operation, {
      authorization: this.headers.authorization,
      requestId: this.requestId,
      decode: () => this.decode(input, message),
    }).then(
      (output) => this.succeed(toWire(operation.method.output, output, this.codec ?? "proto")),
      (error: unknown) => this.failWith(rpcFailureOf(error, this.requestId)),
    );
  }

  private decode(schema: DescMessage, message: Uint8Array) {
    try {
      return this.codec === "json" ? fromJsonString(schema, Buffer.from(message).toString("utf8")) : fromBinary(schema, message);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw invalid(`The request message is not a valid ${schema.typeName}: ${reason}`);
    }
  }

  private succeed(message: Uint8Array): void {
    if (!this.finish()) return;
    const headers: OutgoingHttpHeaders = this.responseHeaders();
    if (this.responseEncoding === "gzip") headers["grpc-encoding"] = "gzip";
    this.stream.respond(headers, { waitForTrailers: true });
    this.stream.once("wantTrailers", () => this.stream.sendTrailers({ "grpc-status": "0" }));
    this.stream.end(frame(message, this.responseEncoding));
  }

  fail(code: Code, message: string): void {
    this.failWith({ code, message });
  }

  /** A trailers-only response: status and message in the one HEADERS frame, as gRPC does for errors. */
  private failWith(failure: RpcFailure): void {
    if (!this.finish()) return;
    const headers = this.responseHeaders();
    headers["grpc-status"] = String(failure.code);
    headers["grpc-message"] = encodeGrpcMessage(failure.message);
    const details = statusDetailsOf(failure);
    if (details) headers["grpc-status-details-bin"] = Buffer.from(details).toString("base64").replace(/=+$/, "");
    this.stream.respond(headers, { endStream: true });
    // Whatever the client still sends is of no use: stop it politely rather than read it.
    if (!this.stream.readableEnded) this.stream.close(constants.NGHTTP2_NO_ERROR);
  }

  /** True exactly once, and only while the stream can still carry an answer. */
  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    clearTimeout(this.timer);
    return !this.stream.destroyed && !this.stream.closed;
  }

  private responseHeaders(): OutgoingHttpHeaders {
    return {
      ":status": 200,
      "content-type": this.codec === "json" ? "application/grpc+json" : "application/grpc",
      "grpc-accept-encoding": ACCEPTED_ENCODINGS,
      [REQUEST_ID_HEADER]: this.requestId,
    };
  }
}

function toWire(schema: DescMessage, output: object, codec: Codec): Uint8Array {
  const message = create(schema, output as never);
  return codec === "json" ? Buffer.from(toJsonString(schema, message)) : toBinary(schema, message);
}

/** Collects the request body, or hands `undefined` as soon as it passes `limit` bytes. */
function readBody(stream: ServerHttp2Stream, limit: number, done: (body: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) return void chunks.push(chunk);
    stream.off("data", onData);
    stream.off("end", onEnd);
    done(undefined);
  };
  const onEnd = () => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  stream.on("data", onData);
  stream.on("end", onEnd);
}

function ignore(): void {}
