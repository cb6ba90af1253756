import { connect as h2Connect, constants, type ClientHttp2Session } from "node:http2";
import { connect as tcpConnect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../support/raw-grpc.js";
import { startKeyward, type RunningKeyward } from "../support/keyward.js";
import { watchWrites } from "../support/store-watch.js";

// Short bounds so each case ends in about a second; the defaults (config.ts) are 10 s, 30 s, 10,000 and 100.
const LIMITS = { headersTimeoutMs: 400, requestTimeoutMs: 800, maxConnections: 8, maxConcurrentStreams: 4 };
/** Generous upper bound for "the server acted on its own": catches a server that never would, never times it. */
const NEVER = 10_000;
const LIVENESS = { headers: { ":method": "GET" } };

interface Closed {
  /** What the server sent before it closed. */
  received: string;
  /** How long the connection lived, in ms (asserted only against NEVER). */
  livedMs: number;
}

/** Opens a raw TCP connection and resolves when the server closes it. */
function openRaw(port: number): { socket: Socket; closed: Promise<Closed> } {
  const socket = tcpConnect(port, "127.0.0.1");
  const openedAt = Date.now();
  let received = "";
  socket.on("data", (chunk) => (received += chunk));
  socket.on("error", () => {});
  const closed = new Promise<Closed>((resolve) => socket.on("close", () => resolve({ received, livedMs: Date.now() - openedAt })));
  return { socket, closed };
}

function h2Session(baseUrl: string): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = h2Connect(baseUrl);
    session.once("remoteSettings", () => resolve(session));
    session.once("error", reject);
  });
}

describe("slow and greedy clients", () => {
  let keyward: RunningKeyward;
  let writes: ReturnType<typeof watchWrites>;
  beforeAll(async () => {
    keyward = await startKeyward({ limits: LIMITS });
    writes = watchWrites(keyward.documents);
  });
  afterAll(() => keyward?.stop());

  it("a connection that never says a word is closed after the headers timeout", async () => {
    const { closed } = openRaw(keyward.port);
    const { received, livedMs } = await closed;
    expect(received).toBe("");
    expect(livedMs).toBeLessThan(NEVER);
  });

  it("a request line over 16 KiB is answered 431 with a request id and a JSON error, and closed", async () => {
    const { socket, closed } = openRaw(keyward.port);
    socket.write(`GET /v1/apis.listKeys?apiId=${"a".repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    const { received } = await closed;
    const [head, body] = received.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    const requestId = /\r\nx-request-id: (req_\w+)\r\n/.exec(head)?.[1];
    expect(requestId).toBeDefined();
    expect(JSON.parse(body)).toEqual({
      meta: { requestId },
      error: { title: "Request Header Fields Too Large", detail: "The request line and headers exceed 16 KiB.", status: 431, type: "https://keyward.dev/docs/errors/bad_request" },
    });
  });

  it("a request line that is not HTTP is answered 400 with a request id, and closed", async () => {
    const { socket, closed } = openRaw(keyward.port);
    socket.write("HELLO THERE\r\n\r\n");
    const { received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\nx-request-id: req_\w+\r\n/);
    expect(JSON.parse(received.split("\r\n\r\n")[1]).error.status).toBe(400);
  });

  it("a request head trickled byte by byte (slowloris) is answered 408 and closed", async () => {
    const { socket, closed } = openRaw(keyward.port);
    const head = "POST /v2/liveness HTTP/1.1\r\nhost: x\r\nx-slow: ";
    socket.write(head);
    // One more header byte every 100 ms: each arrives well within any idle timeout, the head never completes.
    const drip = setInterval(() => socket.writable && socket.write("a"), 100);
    const { received, livedMs } = await closed;
    clearInterval(drip);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(livedMs).toBeLessThan(NEVER);
  });

  it("a body that never finishes arriving is answered 408 and closed (HTTP/1.1)", async () => {
    const { socket, closed } = openRaw(keyward.port);
    socket.write(
      `POST /v2/apis.createApi HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${keyward.rootKey}\r\n`
        + "content-length: 100\r\n\r\n{\"name\":",
    );
    const drip = setInterval(() => socket.writable && socket.write(" "), 100);
    const { received } = await closed;
    clearInterval(drip);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(writes.writes).toEqual([]);
  });

  it("an HTTP/2 stream whose body never ends is reset; the connection serves its other streams", async () => {
    const session = await h2Session(keyward.baseUrl);
    try {
      const stuck = rawRequest(session, "/v2/apis.createApi", {
        headers: { "content-type": "application/json", authorization: `Bearer ${keyward.rootKey}` },
        leaveOpen: true,
      });
      const answer = await stuck;
      expect(answer.rstCode).toBe(constants.NGHTTP2_CANCEL);
      const live = await rawRequest(session, "/v2/liveness", LIVENESS);
      expect(live.headers[":status"]).toBe(200);
    } finally {
      session.close();
    }
  });

  it("connections beyond the bound are closed on arrival; the ones within it are served", async () => {
    const held = Array.from({ length: LIMITS.maxConnections }, () => openRaw(keyward.port));
    // Each held connection has started a request, so the server has accepted all of them.
    for (const { socket } of held) socket.write("GET /v2/liveness HTTP/1.1\r\nhost: x\r\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extra = openRaw(keyward.port);
    extra.socket.write("GET /v1/liveness HTTP/1.1\r\nhost: x\r\n\r\n");
    const refused = await extra.closed;
    expect(refused.received).toBe("");
    // The held ones finish their request and are answered.
    held[0].socket.end("\r\n");
    expect((await held[0].closed).received).toMatch(/^HTTP\/1\.1 (200|404) /);
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // With room again, a new connection is served.
    const after = openRaw(keyward.port);
    after.socket.end("GET /v1/liveness HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    expect((await after.closed).received).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("an HTTP/2 client is told the stream bound; a further stream waits until one ends", async () => {
    const session = await h2Session(keyward.baseUrl);
    try {
      expect(session.remoteSettings.maxConcurrentStreams).toBe(LIMITS.maxConcurrentStreams);
      const open = Array.from({ length: LIMITS.maxConcurrentStreams }, () =>
        rawRequest(session, "/v2/apis.createApi", { headers: { "content-type": "application/json" }, leaveOpen: true }));
      // The client holds back what the server's SETTINGS forbid (nghttp2 would refuse such a stream).
      const queued = rawRequest(session, "/v2/liveness", LIVENESS);
      const first = await Promise.race([queued.then(() => "answered"), new Promise((r) => setTimeout(r, 200, "waiting"))]);
      expect(first).toBe("waiting");
      // Once the open ones are reset (request timeout), the queued one runs.
      const answers = await Promise.all(open);
      expect(answers.map((a) => a.rstCode)).toEqual(Array(LIMITS.maxConcurrentStreams).fill(constants.NGHTTP2_CANCEL));
      expect((await queued).headers[":status"]).toBe(200);
    } finally {
      session.close();
    }
  });

  it("a client that opens and resets streams without end (rapid reset) gets GOAWAY", async () => {
    const session = await h2Session(keyward.baseUrl);
    const goaway = new Promise<number>((resolve) => session.once("goaway", (code: number) => resolve(code)));
    const gone = new Promise<void>((resolve) => session.once("close", () => resolve()));
    session.on("error", () => {});
    let sent = 0;
    // Bounded: at most 20,000 streams; nghttp2's reset-rate guard ends the session long before.
    for (; sent < 20_000 && !session.closed && !session.destroyed; sent++) {
      const stream = session.request({ ":method": "POST", ":path": "/v2/liveness", "content-type": "application/json" });
      stream.on("error", () => {});
      stream.close(constants.NGHTTP2_CANCEL);
      if (sent % 200 === 199) await new Promise((resolve) => setImmediate(resolve));
    }
    // nghttp2 ends the session with GOAWAY (INTERNAL_ERROR) once resets exceed its rate limit.
    const code = await Promise.race([goaway, gone.then(() => -1)]);
    expect(code).toBe(constants.NGHTTP2_INTERNAL_ERROR);
    expect(sent).toBeLessThan(20_000);
    // The server itself serves on.
    const next = await h2Session(keyward.baseUrl);
    const live = await rawRequest(next, "/v2/liveness", LIVENESS);
    expect(live.headers[":status"]).toBe(200);
    next.close();
  });
});
