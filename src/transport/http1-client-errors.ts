import type { Duplex } from "node:stream";
import { newRequestId, REQUEST_ID_HEADER } from "./request-id.js";

// What Node's HTTP/1.1 parser can refuse before any handler sees the request, and how it is answered.
const REFUSALS: Record<string, { status: number; title: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, title: "Request Header Fields Too Large", detail: "The request line and headers exceed 16 KiB." },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, title: "Request Timeout", detail: "The request did not arrive in time." },
};
const MALFORMED = { status: 400, title: "Bad Request", detail: "The request is not valid HTTP/1.1." };

/**
 * The HTTP/1.1 server's `clientError`: a request its parser refused (a URL or headers over the size limit, broken
 * framing, a timeout) is answered like every other, with a request id in the `x-request-id` header and in a JSON error
 * body, then the connection is closed. Node's default answers such requests with a bare status line.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const { status, title, detail } = REFUSALS[error.code ?? ""] ?? MALFORMED;
  const requestId = newRequestId();
  const body = JSON.stringify({
    meta: { requestId },
    error: { title, detail, status, type: `https://keyward.dev/docs/errors/${status === 408 ? "request_timeout" : "bad_request"}` },
  });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
