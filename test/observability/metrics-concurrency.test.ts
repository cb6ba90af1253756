import { createClient } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { KeysService } from "../../gen/keyward/v1/keys_pb.js";
import { deltas, scrape, series } from "../support/prometheus.js";
import { bearer, rpcTransports } from "../support/rpc.js";
import { useKeyward } from "../support/use-keyward.js";

const REST_CALLS = 240;
const GRPC_CALLS = 160;

describe("GET /metrics under concurrent load", () => {
  const harness = useKeyward();
  let key: string;

  beforeAll(async () => {
    const apiId = await harness.seed.api();
    key = (await harness.seed.key(apiId, { credits: { remaining: 1_000_000 } })).key;
  });

  it("counts every one of many concurrent verifications once, on its transport's tally", async () => {
    const { keyward, rest } = harness;
    const grpc = createClient(KeysService, rpcTransports(keyward.baseUrl).grpc);
    const before = await scrape(keyward.baseUrl);

    const codes = await Promise.all([
      ...Array.from({ length: REST_CALLS }, async () => (await rest.v2("keys.verifyKey", { key }, keyward.rootKey)).body.data.code),
      ...Array.from({ length: GRPC_CALLS }, async () => (await grpc.verifyKey({ key }, bearer(keyward.rootKey))).code),
    ]);
    expect(codes.filter((code) => code === "VALID")).toHaveLength(REST_CALLS + GRPC_CALLS);
    const after = await scrape(keyward.baseUrl);

    expect(deltas(before, after, "keyward_requests_total")).toEqual({
      [series("keyward_requests_total", { transport: "rest-v2", route: "KeysService.VerifyKey", status: "200" })]: REST_CALLS,
      [series("keyward_requests_total", { transport: "grpc", route: "KeysService.VerifyKey", status: "ok" })]: GRPC_CALLS,
    });
    expect(deltas(before, after, "keyward_request_duration_seconds_count")).toEqual({
      [series("keyward_request_duration_seconds_count", { transport: "rest-v2", route: "KeysService.VerifyKey" })]: REST_CALLS,
      [series("keyward_request_duration_seconds_count", { transport: "grpc", route: "KeysService.VerifyKey" })]: GRPC_CALLS,
    });
    // The +Inf bucket of each histogram holds every observation, as its count does.
    const inf = deltas(before, after, "keyward_request_duration_seconds_bucket");
    expect(inf[series("keyward_request_duration_seconds_bucket", { transport: "rest-v2", route: "KeysService.VerifyKey", le: "+Inf" })]).toBe(REST_CALLS);
    expect(deltas(before, after, "keyward_verifications_total")).toEqual({
      [series("keyward_verifications_total", { code: "VALID" })]: REST_CALLS + GRPC_CALLS,
    });
    const consumes = deltas(before, after, "keyward_store_operation_duration_seconds_count");
    expect(consumes[series("keyward_store_operation_duration_seconds_count", { store: "counters", operation: "consume" })])
      .toBe(REST_CALLS + GRPC_CALLS);
  });
});
