import { sensitiveHeaders, type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { ExchangeRequest, ExchangeResponse } from "./exchange.js";
import { REQUEST_ID_HEADER } from "./request-id.js";

/**
 * A request and response over a raw HTTP/2 stream, for the REST and Connect handlers, without Node's compatibility
 * layer (which builds a request and a response object with their own streams and header maps for every stream and
 * costs more than the REST call itself).
 */
export class H2Request implements ExchangeRequest {
  readonly url: string | undefined;
  readonly method: string | undefined;

  constructor(private readonly stream: ServerHttp2Stream, readonly headers: IncomingHttpHeaders) {
    this.url = headers[":path"];
    this.method = headers[":method"];
    // A client reset is no server error; the answer, if any, is dropped.
    stream.on("error", ignore);
  }

  /** The connection's socket, for the peer address (the audit log reads it; nothing on the hot path does). */
  get socket(): { remoteAddress?: string } | undefined {
    return this.stream.session?.socket;
  }

  // Any: the listener is one of ExchangeRequest's three listener types.
  on(event: "data" | "end" | "error", listener: (...args: any[]) => void): this {
    this.stream.on(event, listener);
    return this;
  }
}

export class H2Response implements ExchangeResponse {
  private extra: OutgoingHttpHeaders | undefined;

  constructor(private readonly stream: ServerHttp2Stream) {}

  setHeader(name: string, value: string): void {
    (this.extra ??= {})[name] = value;
  }

  writeHead(status: number, headers: OutgoingHttpHeaders): void {
    if (this.stream.destroyed || this.stream.closed) return;
    // A fresh request id per response would churn the connection's HPACK table: send it never-indexed.
    this.stream.respond({ ...this.extra, ...headers, ":status": status, [sensitiveHeaders]: NOT_INDEXED });
  }

  end(body: string | Uint8Array): void {
    if (this.stream.destroyed || this.stream.closed) return;
    if (!this.stream.readableEnded) {
      // Answered before the body was read (413): the rest of the upload is read and dropped once the answer is out
      // (h2-upload.ts, discardRestOfUpload), not reset, which Node's HTTP/2 clients cannot take.
      this.stream.end(body);
    } else {
      // Ending with the body lets nghttp2 close the stream before Node reports the write done, and Node 20 then
      // builds an ERR_STREAM_DESTROYED error (stack trace and all) for every response, for nobody: 15 % of a bare
      // handler's CPU. Ending once the write is done costs an empty DATA frame instead.
      const stream = this.stream;
      stream.write(body, (error) => {
        if (!error) stream.end();
      });
    }
  }
}

const NOT_INDEXED = [REQUEST_ID_HEADER];

function ignore(): void {}
