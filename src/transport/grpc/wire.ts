import type { ConnectError } from "@connectrpc/connect";
import { parseContentType, parseTimeout } from "@connectrpc/connect/protocol-grpc";
import type { Encoding } from "../envelope.js";
import { statusDetailsOf, type RpcFailure } from "../rpc-error.js";

/** The message encodings this server reads and writes (`grpc-encoding`); advertised in `grpc-accept-encoding`. */
export const ACCEPTED_ENCODINGS = "gzip,identity";

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
