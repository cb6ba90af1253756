import type { Server as NetServer, Socket } from "node:net";
import { createServer as createTlsServer, type SecureContextOptions, type TLSSocket } from "node:tls";

/** Serving over TLS: the certificate (and, for mTLS, the client CA) and whether clients must present a certificate. */
export interface TlsListenOptions {
  context: SecureContextOptions;
  /** Ask every client for a certificate signed by `context.ca` and refuse the connection without a valid one. */
  requireClientCertificate: boolean;
}

/** Where a connection goes once its protocol is known; both front doors (cleartext and TLS) hand over the same way. */
export interface Dispatch {
  toHttp1(socket: Socket): void;
  toHttp2(socket: Socket): void;
}

/**
 * The TLS front door: ALPN offers "h2" and "http/1.1"; a client that names neither speaks HTTP/1.1. The raw sockets
 * are what `sockets` tracks (destroying one ends its TLS connection too); a handshake must finish within the
 * headers timeout, as the cleartext door's first bytes must.
 */
export function listenTls(tls: TlsListenOptions, handshakeTimeoutMs: number, sockets: Set<Socket>, dispatch: Dispatch): NetServer {
  const server = createTlsServer({
    ...tls.context,
    requestCert: tls.requireClientCertificate,
    rejectUnauthorized: tls.requireClientCertificate,
    ALPNProtocols: ["h2", "http/1.1"],
    handshakeTimeout: handshakeTimeoutMs,
    noDelay: true,
    keepAlive: true,
  }, (socket: TLSSocket) => {
    socket.on("error", () => socket.destroy());
    if (socket.alpnProtocol === "h2") dispatch.toHttp2(socket);
    else dispatch.toHttp1(socket);
  });
  // A failed handshake (a refused client certificate, garbage, or the handshake timeout) ends the connection. Without
  // this listener Node 20 leaves a timed-out handshake's socket open: measured, test/transport/tls/limits.test.ts.
  server.on("tlsClientError", (_error, socket) => socket.destroy());
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  });
  return server;
}

