import { request } from "node:http";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { compressionGzip, createConnectTransport } from "@connectrpc/connect-node";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import { bearer } from "../support/rpc.js";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

describe("the Connect protocol's unary calls", () => {
  const harness = useKeyward();
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(harness.keyward.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${harness.keyward.rootKey}`, ...headers },
      body,
    });

  it("answers JSON with the request id, ignoring unknown fields as connect-node does", async () => {
    const res = await post("/keyward.v1.ApisService/CreateApi", JSON.stringify({ name: "connect-api", notAField: 1 }), {
      "connect-protocol-version": "1",
      "content-type": "application/json; charset=utf-8",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-request-id")).toMatch(REQUEST_ID);
    expect(await res.json()).toEqual({ apiId: expect.stringMatching(/^api_/) });
  });

  it("answers errors as Connect error JSON with the HTTP status of the code and BadRequest details", async () => {
    const res = await post("/keyward.v1.ApisService/CreateApi", JSON.stringify({ name: "ab" }));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toEqual({
      code: "invalid_argument",
      message: expect.stringMatching(/^name: /),
      details: [{ type: "google.rpc.BadRequest", value: expect.any(String), debug: { fieldViolations: [{ field: "name", description: expect.any(String) }] } }],
    });
    const broken = await post("/keyward.v1.ApisService/CreateApi", "{not json");
    expect({ status: broken.status, code: (await broken.json()).code }).toEqual({ status: 400, code: "invalid_argument" });
    const anonymous = await fetch(harness.keyward.baseUrl + "/keyward.v1.ApisService/CreateApi", {
      method: "POST", headers: { "content-type": "application/json" }, body: "{}",
    });
    expect({ status: anonymous.status, code: (await anonymous.json()).code }).toEqual({ status: 401, code: "unauthenticated" });
  });

  it("answers deadline_exceeded (504) when connect-timeout-ms passes before the request completes", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(harness.keyward.baseUrl + "/keyward.v1.ApisService/CreateApi", {
        method: "POST",
        headers: { "content-type": "application/json", "connect-timeout-ms": "50", authorization: `Bearer ${harness.keyward.rootKey}`, "content-length": "100" },
      }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.write("{"); // and never the rest
    });
    expect(answer.status).toBe(504);
    expect(JSON.parse(answer.body)).toEqual({ code: "deadline_exceeded", message: "the deadline of 50 ms expired" });
  });

  it("leaves compressed calls to connect-node, with the same answers", async () => {
    const transport = createConnectTransport({ baseUrl: harness.keyward.baseUrl, httpVersion: "1.1", sendCompression: compressionGzip, compressMinBytes: 0 });
    const client = createClient(ApisService, transport);
    const created = await client.createApi({ name: "gzip-connect" }, bearer(harness.keyward.rootKey));
    expect(created.apiId).toMatch(/^api_/);
    const error = await client.createApi({ name: "ab" }, bearer(harness.keyward.rootKey)).then(() => undefined, (e: unknown) => ConnectError.from(e));
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toMatch(/^name: /);
  });
});
