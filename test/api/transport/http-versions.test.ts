import { request as http1Request, Agent } from "node:http";
import { connect as http2Connect, type ClientHttp2Session } from "node:http2";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID } from "../../support/vias.js";

interface Answer {
  status: number;
  version: string;
  headers: Record<string, unknown>;
  body: any;
}

function viaHttp1(baseUrl: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = http1Request(`${baseUrl}${path}`, { method: init.method ?? "GET", headers: init.headers, agent: init.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, version: res.httpVersion, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

function viaHttp2(session: ClientHttp2Session, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const stream = session.request({ ":method": init.method ?? "GET", ":path": path, ...init.headers });
    let headers: Record<string, unknown> = {};
    stream.on("response", (h) => void (headers = h));
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () =>
      resolve({ status: Number(headers[":status"]), version: "2.0", headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    stream.on("error", reject);
    stream.end(init.body);
  });
}

describe("HTTP versions on one port", () => {
  const harness = useKeyward();
  const auth = () => ({ authorization: `Bearer ${harness.keyward.rootKey}`, "content-type": "application/json" });

  it("serves HTTP/1.1 and cleartext HTTP/2 (h2c, prior knowledge) on the same port, alike", async () => {
    const one = await viaHttp1(harness.keyward.baseUrl, "/v2/liveness");
    expect({ status: one.status, version: one.version, body: one.body.data }).toEqual({ status: 200, version: "1.1", body: { message: "OK" } });
    expect(one.headers["x-request-id"]).toMatch(REQUEST_ID);

    const session = http2Connect(harness.keyward.baseUrl);
    try {
      const two = await viaHttp2(session, "/v2/liveness");
      expect({ status: two.status, body: two.body.data }).toEqual({ status: 200, body: { message: "OK" } });
      expect(two.headers["x-request-id"]).toBe(two.body.meta.requestId);
      expect(session.alpnProtocol).toBe("h2c");
    } finally {
      session.close();
    }
  });

  it("runs the same operation over both: an api created over HTTP/2 reads back over HTTP/1.1 and vice versa", async () => {
    const session = http2Connect(harness.keyward.baseUrl);
    try {
      const created2 = await viaHttp2(session, "/v2/apis.createApi", { method: "POST", headers: auth(), body: JSON.stringify({ name: "over-h2" }) });
      expect(created2.status).toBe(200);
      const read1 = await viaHttp1(harness.keyward.baseUrl, `/v1/apis.getApi?apiId=${created2.body.data.apiId}`, { headers: auth() });
      expect({ status: read1.status, version: read1.version, name: read1.body.name }).toEqual({ status: 200, version: "1.1", name: "over-h2" });

      const created1 = await viaHttp1(harness.keyward.baseUrl, "/v1/apis.createApi", { method: "POST", headers: auth(), body: JSON.stringify({ name: "over-h1" }) });
      expect(created1.status).toBe(200);
      const read2 = await viaHttp2(session, "/v2/apis.getApi", { method: "POST", headers: auth(), body: JSON.stringify({ apiId: created1.body.apiId }) });
      expect({ status: read2.status, name: read2.body.data.name }).toEqual({ status: 200, name: "over-h1" });

      // Errors travel the same way over HTTP/2.
      const missing = await viaHttp2(session, "/v2/apis.getApi", {
        method: "POST", headers: auth(), body: JSON.stringify({ apiId: "api_1111111111111111111111" }),
      });
      expect({ status: missing.status, title: missing.body.error.title }).toEqual({ status: 404, title: "Not Found" });
    } finally {
      session.close();
    }
  });

  it("multiplexes concurrent requests on one HTTP/2 connection while HTTP/1.1 keep-alive clients share the port", async () => {
    const session = http2Connect(harness.keyward.baseUrl);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, (_, i) =>
          viaHttp2(session, "/v2/apis.createApi", { method: "POST", headers: auth(), body: JSON.stringify({ name: `mux-${i}` }) })),
        ...Array.from({ length: 3 }, () => viaHttp1(harness.keyward.baseUrl, "/v1/liveness", { agent })),
      ]);
      expect(answers.map((a) => [a.version, a.status])).toEqual([
        ...Array(5).fill(["2.0", 200]),
        ...Array(3).fill(["1.1", 200]),
      ]);
      const ids = answers.slice(0, 5).map((a) => a.body.data.apiId);
      expect(new Set(ids).size).toBe(5);
    } finally {
      session.close();
      agent.destroy();
    }
  });

  it("serves Connect and gRPC-Web over HTTP/2 as well as over HTTP/1.1", async () => {
    const transports = {
      "connect-h2": createConnectTransport({ baseUrl: harness.keyward.baseUrl, httpVersion: "2" }),
      "grpcWeb-h2": createGrpcWebTransport({ baseUrl: harness.keyward.baseUrl, httpVersion: "2" }),
      "connect-h1": createConnectTransport({ baseUrl: harness.keyward.baseUrl, httpVersion: "1.1" }),
    };
    for (const [name, transport] of Object.entries(transports)) {
      const apis = createClient(ApisService, transport);
      const headers = { authorization: `Bearer ${harness.keyward.rootKey}` };
      const { apiId } = await apis.createApi({ name: name.replace("-", "_") }, { headers });
      expect({ name, got: (await apis.getApi({ apiId }, { headers })).name }).toEqual({ name, got: name.replace("-", "_") });
    }
  });
});
