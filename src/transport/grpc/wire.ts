import { gunzipSync, gzipSync } from "node:zlib";
import type { ConnectError } from "@connectrpc/connect";
import { parseContentType, parseTimeout } from "@connectrpc/connect/protocol-grpc";
import { statusDetailsOf, type RpcFailure } from "../rpc-error.js";

/** The message encodings this server reads and writes (`grpc-encoding`); advertised in `grpc-accept-encoding`. */
export const ACCEPTED_ENCODINGS = "gzip,identity";

export type Encoding = "identity" | "gzip";

/**
 * Why a request body is not one well-formed unary message: the client's mistake either way, which the handler answers
 * INVALID_ARGUMENT (malformed) or RESOURCE_EXHAUSTED (too large).
 */
export type UnframeResult =
  | { ok: true; message: Uint8Array }
  | { ok: false; reason: "malformed" | "too_large"; detail: string };

/**
 * Reads the single length-prefixed message of a unary request (flag byte, 4-byte big-endian length, message) and
 * inflates it when flagged as compressed. Anything but exactly one complete frame is malformed; a message whose
 * declared or inflated size passes `maxBytes` is too large (inflation stops at the limit, so a small gzip bomb
 * costs nothing).
 */
export function unframeUnary(body: Buffer, options: { encoding: Encoding; maxBytes: number }): UnframeResult {
  if (body.length < 5) {
    return { ok: false, reason: "malformed", detail: body.length === 0 ? "the request has no message" : "the request ends inside a frame header" };
  }
  const flags = body[0];
  const length = body.readUInt32BE(1);
  if (length > options.maxBytes) return { ok: false, reason: "too_large", detail: `message size ${length} is larger than the limit of ${options.maxBytes} bytes` };
  if (body.length < 5 + length) return { ok: false, reason: "malformed", detail: "the request ends inside a message" };
  if (body.length > 5 + length) return { ok: false, reason: "malformed", detail: "a unary request carries exactly one message" };
  if ((flags & 0xfe) !== 0) return { ok: false, reason: "malformed", detail: `reserved frame flags set (0x${flags.toString(16)})` };
  const message = body.subarray(5);
  if ((flags & 1) === 0) return { ok: true, message };
  if (options.encoding === "identity") {
    return { ok: false, reason: "malformed", detail: "a compressed message arrived without grpc-encoding" };
  }
  try {
    return { ok: true, message: gunzipSync(message, { maxOutputLength: options.maxBytes }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      return { ok: false, reason: "too_large", detail: `the inflated message is larger than the limit of ${options.maxBytes} bytes` };
    }
    return { ok: false, reason: "malformed", detail: "the message is not valid gzip" };
  }
}

/** One length-prefixed message, compressed when `encoding` is gzip. */
export function frame(message: Uint8Array, encoding: Encoding): Buffer {
  const payload = encoding === "gzip" ? gzipSync(message) : message;
  const out = Buffer.allocUnsafe(5 + payload.length);
  out[0] = encoding === "gzip" ? 1 : 0;
  out.writeUInt32BE(payload.length, 1);
  out.set(payload, 5);
  return out;
}

/**
 * `grpc-timeout` in milliseconds, read by connect's own parser (1-8 digits and a unit, H M S m u n); undefined when
 * absent. A value of another form gives connect's INVALID_ARGUMENT error for the caller to answer.
 */
export function grpcTimeoutOf(header: string | undefined): { ms?: number; error?: ConnectError } {
  if (header === undefined) return {};
  const parsed = parseTimeout(header, Number.MAX_SAFE_INTEGER);
  return { ms: parsed.timeoutMs, error: parsed.error };
}

/** The message codec a gRPC content type names (connect's parser: `application/grpc`, `+proto`, `+json`). */
export function grpcCodecOf(contentType: string | undefined): "proto" | "json" | undefined {
  const parsed = parseContentType(contentType ?? null);
  return parsed === undefined ? undefined : parsed.binary ? "proto" : "json";
}

/**
 * The encoding of a successful answer: gzip when the request came gzipped and the client accepts gzip (a client
 * that sends no `grpc-accept-encoding` accepts what it sent), else identity.
 */
export function responseEncodingOf(requestEncoding: Encoding, acceptEncoding: string | string[] | undefined): Encoding {
  return requestEncoding === "gzip" && (acceptEncoding === undefined || [acceptEncoding].flat().some((value) => value.includes("gzip"))) ? "gzip" : "identity";
}

/**
 * The status headers of a failed call, sent in the one HEADERS frame of a trailers-only response: code, message
 * (percent-encoded), and for invalid input the `google.rpc.Status` details, base64 without padding as gRPC sends it.
 */
export function failureTrailers(failure: RpcFailure): Record<string, string> {
  const trailers: Record<string, string> = {
    "grpc-status": String(failure.code),
    "grpc-message": encodeGrpcMessage(failure.message),
  };
  const details = statusDetailsOf(failure);
  if (details) trailers["grpc-status-details-bin"] = Buffer.from(details).toString("base64").replace(/=+$/, "");
  return trailers;
}

/** `grpc-message` text: percent-encoded outside printable ASCII (and `%` itself), as the gRPC spec asks. */
export function encodeGrpcMessage(text: string): string {
  return /^[\x20-\x24\x26-\x7e]*$/.test(text) ? text : encodeURIComponent(text);
}
