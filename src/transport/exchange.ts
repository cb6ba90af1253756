import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { KeywardError } from "../domain/errors.js";

/** What a handler reads of a request: Node's HTTP/1.1 and HTTP/2 request objects, or a raw HTTP/2 stream's view. */
export interface ExchangeRequest {
  url?: string;
  method?: string;
  headers: IncomingHttpHeaders;
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** What a handler writes of a response. */
export interface ExchangeResponse {
  setHeader(name: string, value: string): unknown;
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  end(body: string | Uint8Array): unknown;
}

/**
 * The request body, refused (413) past `maxBytes`, declared or received. Events, not `for await`: this runs on every
 * request. Past the limit the rest still flows in and is dropped, so the connection can answer.
 */
export function readBody(req: ExchangeRequest, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (size > maxBytes) return; // refused already
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        chunks.length = 0;
        reject(tooLarge(maxBytes));
      }
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function tooLarge(maxBytes: number) {
  return new KeywardError("payload_too_large", `The request body exceeds ${maxBytes} bytes.`);
}
