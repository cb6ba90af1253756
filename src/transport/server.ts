import { createServer as createHttp1Server, IncomingMessage, type ServerResponse } from "node:http";
import { answerClientError } from "./http1-client-errors.js";
import {
  createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse, type Http2Session, type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from "node:http2";
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
import type { SecureContextOptions, Server as TlsServer } from "node:tls";
import { noteAccepted, watchRefusals } from "./h2-refusals.js";
import { renewStreamTable } from "./h2-stream-table.js";
import { LINGER_MAX_BYTES, watchUpload } from "./h2-upload.js";
import { listenTls, type Dispatch, type TlsListenOptions } from "./tls-listener.js";

export type { TlsListenOptions } from "./tls-listener.js";

export type Handler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

/** Bounds on what one client can hold of the server; each a KEYWARD_* setting (see config.ts). */
export interface ConnectionLimits {
  /** A request's head must arrive within this (HTTP/1.1; and a new connection's first bytes, either protocol). */
  headersTimeoutMs: number;
  /** A whole request, body included, must arrive within this (HTTP/1.1 answers 408; an HTTP/2 stream is reset). */
  requestTimeoutMs: number;
  /** Open connections at most; more are closed on arrival. */
  maxConnections: number;
  /** Concurrent streams per HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxConcurrentStreams: number;
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 10_000,
  maxConcurrentStreams: 100,
};

/** Takes an HTTP/2 stream and returns true, or returns false to leave it to the request handler. */
export type StreamHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

const HTTP2_PREFACE = Buffer.from("PRI ");

export interface ListeningServer {
  port: number;
  host: string;
  /** Whether connections are TLS (then `setSecureContext` swaps the certificate for new connections). */
  tls: boolean;
  /**
   * TLS only: new handshakes use `context` from now on; open connections keep theirs and are not interrupted.
   * Throws (changing nothing) when the context cannot be built, e.g. a key that does not match its certificate.
   */
  setSecureContext(context: SecureContextOptions): void;
  /**
   * Stops accepting connections. With `graceMs`, requests already received finish first (HTTP/1.1 connections close
   * after their current response, HTTP/2 sessions get GOAWAY and finish their open streams) for at most that long;
   * then, or at once without it, every connection is dropped.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Serves HTTP/1.1 and cleartext HTTP/2 (h2c) on one port. Node 20's `allowHTTP1` needs TLS, so each connection's
 * first bytes decide: the HTTP/2 preface goes to the HTTP/2 server, anything else to the HTTP/1.1 server.
 * With `tls`, the port speaks TLS instead and ALPN decides ("h2", else HTTP/1.1), handing the decrypted socket to the
 * same two servers: `http2.createSecureServer({allowHTTP1})` would do the same choice but would bypass the raw
 * stream path and the limits below, so both modes share one set of servers and only the front door differs.
 *
 * HTTP/2 streams go to `stream` first, raw: Node's compatibility layer (request/response objects per stream) costs
 * more than a whole unary call. What `stream` declines reaches `handler` through that layer, by way of a second,
 * never-listening HTTP/2 server whose only job is to make the request/response pair.
 */
export async function listen(
  app: { handler: Handler; stream?: StreamHandler },
  options: { port: number; host: string; limits?: ConnectionLimits; tls?: TlsListenOptions },
): Promise<ListeningServer> {
  const { handler } = app;
  const limits = options.limits ?? DEFAULT_LIMITS;
  let closing = false;
  const served = drainUnreadBody(handler);
  const http1 = createHttp1Server({
    IncomingMessage: KeepOpenRequest,
    keepAliveTimeout: 65_000,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // How often Node checks those two timeouts.
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
  }, (req, res) => {
    // Shutting down: this response is the connection's last.
    if (closing) res.shouldKeepAlive = false;
    served(req, res);
  });
  http1.on("clientError", answerClientError);
  // Node tracks an HTTP/1.1 server's connections (for closeIdleConnections, headersTimeout and requestTimeout) from
  // its "listening" event; this one never listens itself, it is handed connections, so it is told.
  http1.emit("listening");
  const compat = createHttp2Server({}, drainUnreadBody(handler));
  // Node's HTTP/2 also bounds the rate of stream resets a client may cause (the "rapid reset" attack): past it the
  // session gets GOAWAY. test/edges shows it.
  const http2 = createHttp2Server({ settings: { maxConcurrentStreams: limits.maxConcurrentStreams } });
  const takeStream = app.stream ?? (() => false);
  http2.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
    noteAccepted(stream);
    // Keeps the session's stream table young, so finished streams die young (see h2-stream-table.ts).
    renewStreamTable(stream.session);
    if ((flags & END_STREAM) === 0) watchUpload(stream, limits.requestTimeoutMs);
    if (!takeStream(stream, headers)) compat.emit("stream", stream, headers, flags, rawHeaders);
  });
  const sockets = new Set<Socket>();
  // Connections whose first bytes have not come yet: nothing to finish there when closing.
  const undecided = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  http2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  // A session that has stopped taking streams (Node's memory cap) gets GOAWAY rather than resetting every new one.
  const stopRefusalWatch = watchRefusals(sessions, { periodMs: REFUSAL_CHECK_MS, graceMs: limits.requestTimeoutMs });

  const dispatch: Dispatch = {
    toHttp1(socket) {
      lingerOnLastResponse(socket);
      http1.emit("connection", socket);
    },
    toHttp2: (socket) => http2.emit("connection", socket),
  };
  const server = options.tls ? listenTls(options.tls, limits.headersTimeoutMs, sockets, dispatch) : listenCleartext(limits, sockets, undecided, dispatch);

  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    port: address.port,
    host: options.host,
    tls: options.tls !== undefined,
    setSecureContext(context) {
      if (!options.tls) throw new Error("setSecureContext needs a server started with TLS");
      (server as TlsServer).setSecureContext(context);
    },
    async close({ graceMs = 0 } = {}) {
      closing = true;
      stopRefusalWatch();
      // Resolves once the last connection is gone.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      for (const socket of undecided) socket.destroy();
      http1.closeIdleConnections();
      if (graceMs > 0) {
        // A connection between two keep-alive requests is idle now, or will be once its response is out.
        const sweep = setInterval(() => http1.closeIdleConnections(), 20);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearInterval(sweep);
        clearTimeout(timer);
      }
      for (const socket of sockets) socket.destroy();
      // Stops the connection-tracking timer "listening" started.
      http1.close();
      await closed;
    },
  };
}

/** The cleartext front door: each connection's first bytes pick the protocol (see listen). */
function listenCleartext(limits: ConnectionLimits, sockets: Set<Socket>, undecided: Set<Socket>, dispatch: Dispatch): NetServer {
  // http.createServer turns Nagle off for its own sockets; these come from our server, so it must do the same.
  return createNetServer({ noDelay: true, keepAlive: true }, (socket) => {
    sockets.add(socket);
    undecided.add(socket);
    // A connection that never says which protocol it speaks holds a slot for nothing.
    socket.setTimeout(limits.headersTimeoutMs, () => {
      if (undecided.has(socket)) socket.destroy();
    });
    socket.once("close", () => {
      sockets.delete(socket);
      undecided.delete(socket);
    });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const tooShort = head.length < HTTP2_PREFACE.length && HTTP2_PREFACE.subarray(0, head.length).equals(head);
      if (tooShort) return;
      undecided.delete(socket);
      socket.setTimeout(0);
      socket.off("data", onData);
      socket.pause();
      socket.unshift(head);
      if (head.subarray(0, HTTP2_PREFACE.length).equals(HTTP2_PREFACE)) {
        dispatch.toHttp2(socket);
      } else {
        dispatch.toHttp1(socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  });
}

/**
 * A handler that refuses a body part-way (Connect's readMaxBytes, the REST 413) stops iterating the request; by
 * default that destroys it, and with it the HTTP/1.1 socket, often before the error response is flushed, so the
 * client sees a reset or hangs. Iterating without destroy-on-return and discarding whatever is still unread
 * delivers the error and keeps the connection usable: every request's iteration does so as it stops early
 * (iterateKeepingOpen). A body nobody read is discarded by Node's HTTP/1.1 server, so a KeepOpenRequest costs
 * nothing per request here. Any other request (the HTTP/2 compatibility layer's, or where a runtime does not take the
 * IncomingMessage option) is also resumed once its answer is out. On HTTP/2 the response's own "finish" waits for
 * the stream to close, which an unread upload holds off: there the stream's "finish" (the answer written) is the
 * signal.
 */
function drainUnreadBody(handler: Handler): Handler {
  return (req, res) => {
    if (!(req instanceof KeepOpenRequest)) {
      if (typeof (req as Partial<IterableReadable>).iterator === "function") {
        Object.defineProperty(req, Symbol.asyncIterator, { value: iterateKeepingOpen });
      }
      // `on`, not `once`: "finish" comes once, and the listener goes with the response (no wrapper to make and remove).
      ((res as Partial<Http2ServerResponse>).stream ?? res).on("finish", () => {
        if (!req.complete && !req.destroyed) req.resume();
      });
    }
    handler(req, res);
  };
}

/** HTTP/1.1 requests that iterate without destroy-on-return (see drainUnreadBody), by class rather than per request. */
class KeepOpenRequest extends IncomingMessage {
  override [Symbol.asyncIterator](): AsyncIterableIterator<unknown> {
    return iterateKeepingOpen.call(this);
  }
}

const END_STREAM = 0x1;

/** How often sessions are checked for refusing every new stream (h2-refusals.ts). */
const REFUSAL_CHECK_MS = 1_000;

/** How long a closing HTTP/1.1 connection keeps reading what its client still sends (see lingerOnLastResponse). */
const LINGER_MS = 2_000;

/**
 * A connection's last response (Connection: close, or shutdown) may go out while the client is still sending its
 * request body, e.g. a 413 answered from Content-Length. Closing then with unread input makes the kernel send a
 * reset, which also throws away the response the client has not read yet: it sees ECONNRESET/EPIPE instead of the
 * 413. So the close lingers, as HTTP servers do: send FIN after the response, keep reading and dropping input until
 * the client closes (bounded in time and bytes), then close.
 */
function lingerOnLastResponse(socket: Socket): void {
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    if (this.destroyed) return;
    this.end();
    if (this.readableEnded) return void this.destroy();
    const startedAt = this.bytesRead;
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    this.once("close", () => clearTimeout(timer));
    this.once("end", () => this.destroy());
    this.on("data", () => {
      if (this.bytesRead - startedAt > LINGER_MAX_BYTES) this.destroy();
    });
    this.resume();
  };
}

type IterableReadable = {
  complete: boolean;
  destroyed: boolean;
  resume(): unknown;
  iterator(options: { destroyOnReturn: boolean }): AsyncIterableIterator<unknown>;
};

/**
 * The request's iterator without destroy-on-return; stopped early, once it has let go of the request, the rest of the
 * body is read and dropped. Shared by every request (as `this`): a closure is made only for an iteration.
 */
function iterateKeepingOpen(this: IterableReadable): AsyncIterableIterator<unknown> {
  const request = this;
  const iterator = request.iterator({ destroyOnReturn: false });
  const stop = iterator.return!;
  iterator.return = function stopAndDiscard(this: typeof iterator, value?: unknown) {
    const stopped = stop.call(this, value);
    void stopped.then(() => {
      if (!request.complete && !request.destroyed) request.resume();
    }, () => {});
    return stopped;
  };
  return iterator;
}
