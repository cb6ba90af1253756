import { constants, type ServerHttp2Stream } from "node:http2";

/**
 * At most how much of a request a connection reads and drops once it has answered: a closing HTTP/1.1 connection
 * (server.ts, lingerOnLastResponse) and an answered HTTP/2 stream (discardRestOfUpload).
 */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/** How long an answered HTTP/2 stream waits for more of its request before resetting it (discardRestOfUpload). */
const DISCARD_IDLE_MS = 2_000;

const UPLOAD_TIMER = Symbol("keyward.uploadTimer");
const DISCARDED = Symbol("keyward.discardedBytes");
type UploadStream = ServerHttp2Stream & { [UPLOAD_TIMER]?: NodeJS.Timeout; [DISCARDED]?: number };

/**
 * Watches an HTTP/2 request with a body. One that has not fully arrived within `timeoutMs` is reset: slowloris on
 * h2. One still arriving when its answer is complete (a message over the size limit, a call refused before its
 * body was read) is read and dropped (discardRestOfUpload). Every call with a body passes here, so it allocates
 * only the timer: shared listeners, state on the stream.
 */
export function watchUpload(stream: UploadStream, timeoutMs: number): void {
  stream[UPLOAD_TIMER] = setTimeout(resetSlowStream, timeoutMs, stream);
  stream.on("close", clearUploadTimer);
  stream.on("finish", discardRestOfUpload);
}

function clearUploadTimer(this: UploadStream): void {
  clearTimeout(this[UPLOAD_TIMER]);
}

function resetSlowStream(stream: ServerHttp2Stream): void {
  if (!stream.closed && !stream.readableEnded) stream.close(constants.NGHTTP2_CANCEL);
}

/**
 * The answer is out and the request is still arriving: its rest is read and dropped, so nothing is buffered, until
 * the client ends it. Resetting at once, as HTTP/2 allows, is what Node's own client (grpc-js,
 * @connectrpc/connect-node) cannot take: it keeps counting the unsent rest of each request reset so against its
 * session memory (10 MiB by default), and past that refuses every later response on the connection with
 * ENHANCE_YOUR_CALM (measured on Node 20: the third 5 MiB message did it). The stream is reset (NO_ERROR: "stop
 * sending") only past LINGER_MAX_BYTES, or once the client has sent nothing for DISCARD_IDLE_MS (it then holds no
 * unsent data, which is what makes a reset harmful); the upload's time limit still applies.
 */
function discardRestOfUpload(this: UploadStream): void {
  if (this.readableEnded || this.destroyed) return;
  this[DISCARDED] = 0;
  this.on("data", countDiscarded);
  this.setTimeout(DISCARD_IDLE_MS, stopUpload);
  this.resume();
}

function countDiscarded(this: UploadStream, chunk: Buffer): void {
  this[DISCARDED] = (this[DISCARDED] ?? 0) + chunk.length;
  if (this[DISCARDED] > LINGER_MAX_BYTES) stopUpload.call(this);
}

function stopUpload(this: ServerHttp2Stream): void {
  if (!this.closed) this.close(constants.NGHTTP2_NO_ERROR);
}
