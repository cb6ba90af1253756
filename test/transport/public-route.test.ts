import { describe, expect, it } from "vitest";
import { LivenessService } from "../../gen/keyward/v1/liveness_pb.js";
import { RPC_VIAS } from "../support/operations.js";
import { rpcClient, rpcTransports } from "../support/rpc.js";
import { useKeyward } from "../support/use-keyward.js";

describe("liveness (a public route)", () => {
  const harness = useKeyward();
  const headerCases: [string, Record<string, string>][] = [
    ["no Authorization header", {}],
    ["a malformed Authorization header", { authorization: "Basic x" }],
    ["an unknown root key", { authorization: "Bearer kw_root_unknown_key_1234" }],
  ];

  for (const [what, headers] of headerCases) {
    it(`answers 200 on REST v2 and v1 with ${what}`, async () => {
      const v2 = await harness.rest.raw("/v2/liveness", { headers });
      expect(v2.status).toBe(200);
      expect(v2.body).toEqual({ meta: { requestId: v2.headers.get("x-request-id") }, data: { message: "OK" } });
      const v1 = await harness.rest.raw("/v1/liveness", { headers });
      expect(v1.status).toBe(200);
      expect(v1.body).toEqual({
        status: "ok",
        services: { metrics: "ok", logger: "ok", ratelimit: "ok", usagelimit: "ok" },
      });
    });

    it(`answers OK over Connect, gRPC and gRPC-Web with ${what}`, async () => {
      const transports = rpcTransports(harness.keyward.baseUrl);
      for (const via of RPC_VIAS) {
        const response = await rpcClient(LivenessService, transports[via]).liveness({}, { headers });
        expect({ via, message: response.message }).toEqual({ via, message: "OK" });
      }
    });
  }
});
