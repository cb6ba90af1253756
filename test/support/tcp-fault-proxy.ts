import { createConnection, createServer, type Socket } from "node:net";

/** What the proxy does to traffic: pass it, swallow requests (a hung server), or lose replies to matching requests. */
export type FaultMode =
  | { kind: "pass" }
  | { kind: "hang" }
  /** Forwards a request containing `marker` to the server, then drops the client's connection instead of replying. */
  | { kind: "lose-reply"; marker: Buffer };

export interface FaultProxy {
  port: number;
  mode: FaultMode;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of `target` for failure tests over real sockets: a request applied by the server
 * whose reply never arrives, or a server that accepts connections and never answers. Set `mode` at any time.
 */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const sockets = new Set<Socket>();
  const proxy: FaultProxy = { port: 0, mode: { kind: "pass" }, close };
  const server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    let loseNextReply = false;
    client.on("data", (chunk) => {
      const mode = proxy.mode;
      if (mode.kind === "hang") return;
      if (mode.kind === "lose-reply" && chunk.includes(mode.marker)) loseNextReply = true;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (proxy.mode.kind === "hang") return;
      if (loseNextReply) {
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as { port: number }).port;

  async function close() {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return proxy;
}

/** The bytes a command document starts with in BSON: `{<command>: "<collection>", ...}` (string element). */
export function bsonCommandMarker(command: string, collection: string): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32LE(Buffer.byteLength(collection) + 1);
  return Buffer.concat([Buffer.from([0x02]), Buffer.from(`${command}\0`), length, Buffer.from(`${collection}\0`)]);
}
