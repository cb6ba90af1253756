import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type ListeningServer } from "../../src/transport/server.js";

const ENHANCE_YOUR_CALM = 11;
// Deno's node:http2 has no session memory cap: it never refuses a stream, so there is nothing to see there.
const IS_DENO = "Deno" in globalThis;

describe.skipIf(IS_DENO)("an HTTP/2 session over its memory cap (Node)", () => {
  let server: ListeningServer;
  beforeAll(async () => {
    // Every stream is answered 512 KiB, which a client that grants no flow-control window leaves queued on the server,
    // counted against the session's memory (Node's maxSessionMemory, 10 MiB): the cap is reached after ~19 streams.
    server = await listen({
      handler: (_req, res) => res.end(),
      stream: (stream) => {
        stream.on("error", () => {});
        stream.respond({ ":status": 200 });
        stream.end(Buffer.alloc(512 * 1024));
        return true;
      },
    }, { port: 0, host: "127.0.0.1" });
  });
  afterAll(() => server?.close());

  it("gets GOAWAY(ENHANCE_YOUR_CALM) naming its last accepted stream, instead of having every new stream reset", async () => {
    const session = connect(`http://127.0.0.1:${server.port}`, { settings: { initialWindowSize: 0 } });
    session.on("error", () => {});
    const goaway = new Promise<{ code: number; lastStreamId: number }>((resolve) =>
      session.once("goaway", (code, lastStreamId) => resolve({ code, lastStreamId })));
    const answered: number[] = [];
    let refused = 0;
    for (let i = 0; i < 30; i++) {
      const stream = session.request({ ":path": `/${i}` });
      stream.on("error", () => {});
      stream.end();
      await new Promise<void>((resolve) => {
        stream.once("response", () => resolve(void answered.push(stream.id as number)));
        stream.once("close", () => resolve(void (refused += stream.rstCode === ENHANCE_YOUR_CALM ? 1 : 0)));
      });
    }
    expect({ answered: answered.length > 10, refused: refused > 0 }).toEqual({ answered: true, refused: true });
    // The check runs every second; the test's own timeout bounds the wait.
    expect(await goaway).toEqual({ code: ENHANCE_YOUR_CALM, lastStreamId: answered[answered.length - 1] });
    session.destroy();

    // Only that session was given up: a new connection is served.
    const fresh = connect(`http://127.0.0.1:${server.port}`);
    const status = await new Promise((resolve) => fresh.request({ ":path": "/" }).on("response", (h) => resolve(h[":status"])).end());
    expect(status).toBe(200);
    fresh.destroy();
  });
});
