import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http2";
import { gunzipSync, gzipSync } from "node:zlib";

/** What came back on one raw HTTP/2 stream. */
export interface RawAnswer {
  headers: IncomingHttpHeaders;
  /** Undefined for a trailers-only answer (status in `headers`, no DATA). */
  trailers?: IncomingHttpHeaders;
  body: Buffer;
  /** RST_STREAM code the stream closed with (0 = NO_ERROR). */
  rstCode: number;
}

/** A length-prefixed gRPC message; `compressed` gzips it and sets the flag. */
export function grpcFrame(message: Uint8Array, options: { compressed?: boolean } = {}): Buffer {
  const payload = options.compressed ? gzipSync(message) : Buffer.from(message);
  const out = Buffer.alloc(5 + payload.length);
  out[0] = options.compressed ? 1 : 0;
  out.writeUInt32BE(payload.length, 1);
  payload.copy(out, 5);
  return out;
}

/** The messages of a gRPC response body (inflated when flagged compressed). */
export function grpcMessages(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const length = body.readUInt32BE(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    out.push(body[at] === 1 ? gunzipSync(payload) : payload);
    at += 5 + length;
  }
  return out;
}

/** The status of a gRPC answer, from trailers or (trailers-only) headers. */
export function grpcStatusOf(answer: RawAnswer): { status: number; message: string } {
  const source = answer.trailers ?? answer.headers;
  return { status: Number(source["grpc-status"]), message: decodeURIComponent(String(source["grpc-message"] ?? "")) };
}

/**
 * Sends one request on `session` (or a fresh connection to `baseUrl`) exactly as given: headers, then `body`
 * (unless `leaveOpen`, which sends nothing and keeps the request open), and collects the answer.
 */
export function rawRequest(
  target: ClientHttp2Session | string,
  path: string,
  options: { headers?: OutgoingHttpHeaders; body?: Uint8Array; leaveOpen?: boolean } = {},
): Promise<RawAnswer> {
  const session = typeof target === "string" ? connect(target) : target;
  return new Promise<RawAnswer>((resolve, reject) => {
    const stream = session.request({ ":method": "POST", ":path": path, te: "trailers", ...options.headers });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (headers = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("close", () => resolve({ headers, trailers, body: Buffer.concat(chunks), rstCode: stream.rstCode ?? 0 }));
    stream.on("error", (error) => {
      // A reset after a complete answer still resolves through "close"; only a missing answer is an error.
      if (!headers[":status"]) reject(error);
    });
    if (!options.leaveOpen) stream.end(options.body);
  }).finally(() => {
    if (typeof target === "string") session.close();
  });
}
