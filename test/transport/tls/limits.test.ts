import { connect as netConnect } from "node:net";
import { connect as http2Connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTlsContext } from "../../../src/transport/tls-certificates.js";
import { startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { makeTestCertificates, type TestCertificates } from "./certificates.js";
import { httpsPost } from "./clients.js";

describe("TLS keeps the connection limits of the cleartext port", () => {
  let certs: TestCertificates;
  let keyward: RunningKeyward;
  beforeAll(async () => {
    certs = makeTestCertificates();
    keyward = await startKeyward({
      tls: { context: readTlsContext({ certFile: certs.server.certFile, keyFile: certs.server.keyFile }), requireClientCertificate: false },
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 1_000, maxConnections: 100, maxConcurrentStreams: 2 },
    });
  });
  afterAll(async () => {
    await keyward?.stop();
    certs?.remove();
  });

  it("closes a connection that never finishes its TLS handshake after the headers timeout", async () => {
    const socket = netConnect(keyward.port, "127.0.0.1");
    const startedAt = Date.now();
    const closedAfter = await new Promise<number>((resolve) => {
      socket.on("error", () => {});
      socket.on("close", () => resolve(Date.now() - startedAt));
    });
    expect(closedAfter).toBeGreaterThanOrEqual(250);
    expect(closedAfter).toBeLessThan(5_000);
  });

  it("tells an HTTP/2 client over TLS the stream bound (SETTINGS_MAX_CONCURRENT_STREAMS) and serves it", async () => {
    const session = http2Connect(keyward.baseUrl, { ca: certs.ca, servername: "localhost" });
    try {
      const settings = await new Promise<{ maxConcurrentStreams?: number }>((resolve, reject) => {
        session.once("remoteSettings", resolve);
        session.once("error", reject);
      });
      expect(settings.maxConcurrentStreams).toBe(2);
      expect(session.alpnProtocol).toBe("h2");
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ":path": "/v2/openapi.json" });
        stream.on("response", (headers) => resolve(Number(headers[":status"])));
        stream.on("error", reject);
        stream.resume();
      });
      expect(status).toBe(200);
    } finally {
      session.close();
    }
  });

  it("answers over HTTP/1.1 keep-alive and still serves the next request on the same connection", async () => {
    const first = await httpsPost(keyward.baseUrl, "/v2/apis.listApis", {}, { ca: certs.ca, rootKey: keyward.rootKey });
    expect([first.status, first.body.data]).toEqual([200, []]);
    const noKey = await httpsPost(keyward.baseUrl, "/v2/apis.listApis", {}, { ca: certs.ca });
    expect([noKey.status, noKey.body.error.detail]).toEqual([401, expect.any(String)]);
  });
});
