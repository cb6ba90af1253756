import { createClient } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { LivenessService } from "../../../gen/keyward/v1/liveness_pb.js";
import { rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID } from "../../support/vias.js";

describe("liveness", () => {
  const harness = useKeyward();

  it("GET /v2/liveness answers {meta:{requestId}, data:{message:\"OK\"}} without a root key", async () => {
    const response = await harness.rest.raw("/v2/liveness");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.body).toEqual({ meta: { requestId: expect.stringMatching(REQUEST_ID) }, data: { message: "OK" } });
    expect(response.headers.get("x-request-id")).toBe(response.body.meta.requestId);
  });

  it("GET /v1/liveness answers Unkey's v1 shape: status ok and every service ok", async () => {
    const response = await harness.rest.raw("/v1/liveness");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok", services: { metrics: "ok", logger: "ok", ratelimit: "ok", usagelimit: "ok" } });
    expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
  });

  it("ignores a root key, even an unknown one: liveness is public", async () => {
    for (const path of ["/v1/liveness", "/v2/liveness"]) {
      const response = await harness.rest.raw(path, { headers: { authorization: "Bearer kw_root_unknown" } });
      expect(response.status).toBe(200);
    }
  });

  it("answers Liveness over Connect, gRPC and gRPC-Web with message OK", async () => {
    for (const [via, transport] of Object.entries(rpcTransports(harness.keyward.baseUrl))) {
      const response = await createClient(LivenessService, transport).liveness({});
      expect({ via, message: response.message }).toEqual({ via, message: "OK" });
    }
  });
});
