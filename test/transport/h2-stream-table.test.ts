import { connect, type ClientHttp2Session, type Http2Session, type ServerHttp2Stream } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renewStreamTable } from "../../src/transport/h2-stream-table.js";
import { listen, type ListeningServer } from "../../src/transport/server.js";

// The Map renewed is Node's; Deno's node:http2 has none, and renewing is then a no-op (the last test).
const IS_DENO = "Deno" in globalThis;

/** Node's Map of a session's open streams (what renewStreamTable replaces), read the way it finds it. */
function streamTable(session: Http2Session): Map<number, ServerHttp2Stream> {
  const key = Object.getOwnPropertySymbols(session).find((symbol) => symbol.description === "state")!;
  return (session as unknown as Record<symbol, { streams: Map<number, ServerHttp2Stream> }>)[key].streams;
}

describe.skipIf(IS_DENO)("an HTTP/2 session's stream table, renewed every few streams (Node)", () => {
  let server: ListeningServer;
  // Streams held open until the test answers them, with the server session's table as each one arrived.
  const open: ServerHttp2Stream[] = [];
  const tables: Map<number, ServerHttp2Stream>[] = [];
  // Each held stream's request trailer, once it arrives.
  const trailers: Promise<unknown>[] = [];
  let serverSession: Http2Session | undefined;
  let client: ClientHttp2Session;

  beforeAll(async () => {
    server = await listen({
      handler: (_req, res) => res.end(),
      stream: (stream) => {
        stream.on("error", () => {});
        serverSession = stream.session;
        tables.push(streamTable(stream.session!));
        open.push(stream);
        trailers.push(new Promise((resolve) => stream.once("trailers", (headers) => resolve(headers["x-checksum"]))));
        return true;
      },
    }, { port: 0, host: "127.0.0.1" });
    client = connect(`http://127.0.0.1:${server.port}`);
    client.on("error", () => {});
  });
  afterAll(async () => {
    client?.destroy();
    await server?.close();
  });

  function request(path: string, body: string): { status: Promise<number>; data: Promise<string> } {
    const stream = client.request({ ":method": "POST", ":path": path }, { waitForTrailers: true });
    stream.on("error", () => {});
    stream.once("wantTrailers", () => stream.sendTrailers({ "x-checksum": String(body.length) }));
    stream.end(body);
    const status = new Promise<number>((resolve) => stream.once("response", (h) => resolve(h[":status"] as number)));
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => (text += chunk));
    const data = new Promise<string>((resolve) => stream.once("end", () => resolve(text)));
    return { status, data };
  }

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  it("is a fresh copy now and then, holding exactly the open streams, and Node still finds every stream in it", async () => {
    // 20 streams held open at once on one connection, sent one by one (a renewal copies every stream that has
    // arrived by then); trailers and answers below reach them through the table.
    const calls = [];
    for (let i = 0; i < 20; i++) {
      calls.push(request(`/held/${i}`, `body-${i}`));
      await until(() => open.length === i + 1);
    }
    const session = serverSession!;
    const table = streamTable(session);
    // Renewed once a quarter as many new streams came as the table held (not for the first, alone in it): each
    // number is the first stream that saw that table.
    expect(tables.map((t) => tables.indexOf(t))).toEqual([0, 1, 2, 3, 4, 4, 6, 6, 8, 8, 8, 11, 11, 11, 14, 14, 14, 14, 18, 18]);
    expect(table).not.toBe(tables[0]);
    // Node's own Map subclass, not a plain Map; the open streams, in order.
    expect(table.constructor).toBe(tables[0]!.constructor);
    expect([...table.values()]).toEqual(open);
    expect([...table.keys()]).toEqual(open.map((stream) => stream.id));

    // Request trailers arrive as HEADERS on an existing stream: Node looks the stream up in the (renewed) table.
    expect(await Promise.all(trailers)).toEqual(open.map((_, i) => String(`body-${i}`.length)));
    for (const [i, stream] of open.entries()) {
      stream.respond({ ":status": 200 });
      stream.end(`answer-${i}`);
    }
    expect(await Promise.all(calls.map((call) => call.status))).toEqual(open.map(() => 200));
    expect(await Promise.all(calls.map((call) => call.data))).toEqual(open.map((_, i) => `answer-${i}`));
    // Closed streams leave the table (Node deletes them from the current one).
    await until(() => streamTable(session).size === 0);
    expect(streamTable(session).size).toBe(0);
  });

  it("a client reset reaches a stream that arrived before the last renewal, and the session still closes cleanly", async () => {
    open.length = 0;
    const streams = Array.from({ length: 10 }, (_, i) => client.request({ ":method": "POST", ":path": `/reset/${i}` }));
    for (const stream of streams) stream.on("error", () => {});
    await until(() => open.length === 10);
    const closed = new Promise<number>((resolve) => open[0]!.once("close", () => resolve(open[0]!.rstCode)));
    const CANCEL = 8;
    streams[0]!.close(CANCEL);
    expect(await closed).toBe(CANCEL);
    expect(streamTable(serverSession!).has(open[0]!.id!)).toBe(false);
    // Destroying the session destroys every stream it still tracks, found through the table.
    const remaining = open.slice(1);
    const destroyed = Promise.all(remaining.map((stream) => new Promise<boolean>((resolve) => stream.once("close", () => resolve(stream.destroyed)))));
    serverSession!.destroy();
    expect(await destroyed).toEqual(remaining.map(() => true));
  });
});

describe("renewing the stream table where there is none", () => {
  it("leaves a session without Node's state alone, then and later", () => {
    const session = {} as Http2Session;
    renewStreamTable(session);
    renewStreamTable(session);
    renewStreamTable(undefined);
    expect(Object.getOwnPropertySymbols(session).map((key) => [key.description, (session as never)[key]])).toEqual([["keyward.streamTableCountdown", Infinity]]);
  });
});
