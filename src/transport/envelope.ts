import { gunzipSync, gzipSync } from "node:zlib";

/**
 * The length-prefixed envelope gRPC and gRPC-Web put around each message (flag byte, 4-byte big-endian length,
 * message), as connect-es keeps its envelope apart from its protocols: the gRPC entry (grpc/handler.ts) and the checks
 * in front of connect-node's gRPC-Web (connect/adapter-check.ts) read and write it here.
 */

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

/** The size of the envelope's header (flag byte and length): what an encoder reserves in front for frameInPlace. */
export const FRAME_HEADER_BYTES = 5;

/** An uncompressed frame around a message encoded after FRAME_HEADER_BYTES reserved bytes: header written, no copy. */
export function frameInPlace(framed: Uint8Array): Uint8Array {
  const length = framed.length - FRAME_HEADER_BYTES;
  framed[0] = 0;
  framed[1] = length >>> 24;
  framed[2] = length >>> 16;
  framed[3] = length >>> 8;
  framed[4] = length;
  return framed;
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
