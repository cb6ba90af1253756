import { createClient } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import { KeysService } from "../../gen/keyward/v1/keys_pb.js";
import { deltas, scrape, series } from "../support/prometheus.js";
import { bearer, rpcTransports } from "../support/rpc.js";
import { useKeyward } from "../support/use-keyward.js";

const requests = (transport: string, route: string, status: string) => series("keyward_requests_total", { transport, route, status });
const durations = (transport: string, route: string) => series("keyward_request_duration_seconds_count", { transport, route });

describe("GET /metrics counts exactly what was served", () => {
  const harness = useKeyward();
  let apiId: string;
  let valid: string;
  let withOneCredit: string;
  let disabled: string;

  beforeAll(async () => {
    apiId = await harness.seed.api();
    valid = (await harness.seed.key(apiId)).key;
    withOneCredit = (await harness.seed.key(apiId, { credits: { remaining: 1 } })).key;
    disabled = (await harness.seed.key(apiId, { enabled: false })).key;
  });

  it("requests by transport, route and status; verifications by code; caches, stores and the event buffer", async () => {
    const { keyward, rest } = harness;
    const transports = rpcTransports(keyward.baseUrl);
    const auth = bearer(keyward.rootKey);
    const before = await scrape(keyward.baseUrl);

    // REST v2 and v1, one refusal, two unknown paths.
    for (let i = 0; i < 3; i++) expect((await rest.v2("apis.getApi", { apiId }, keyward.rootKey)).status).toBe(200);
    expect((await rest.v2("apis.getApi", { apiId })).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await rest.v1Get("apis.getApi", { apiId }, keyward.rootKey)).status).toBe(200);
    expect((await rest.v2("nothing.here", {}, keyward.rootKey)).status).toBe(404);
    expect((await rest.raw("/nowhere")).status).toBe(404);
    // gRPC (the lean HTTP/2 path), Connect (the lean unary path), gRPC-Web (through connect-node).
    const grpcApis = createClient(ApisService, transports.grpc);
    for (let i = 0; i < 2; i++) expect((await grpcApis.getApi({ apiId }, auth)).id).toBe(apiId);
    await expect(grpcApis.getApi({ apiId: "api_missing" }, auth)).rejects.toThrow(/does not exist/);
    for (let i = 0; i < 2; i++) expect((await createClient(ApisService, transports.connect).getApi({ apiId }, auth)).id).toBe(apiId);
    expect((await createClient(ApisService, transports.grpcWeb).getApi({ apiId }, auth)).id).toBe(apiId);
    // Verifications with known outcomes.
    const verifyV2 = async (key: string) => (await rest.v2("keys.verifyKey", { key }, keyward.rootKey)).body.data.code;
    expect([await verifyV2(valid), await verifyV2(valid), await verifyV2("unknown_key_0123456789abc"), await verifyV2(disabled)])
      .toEqual(["VALID", "VALID", "NOT_FOUND", "DISABLED"]);
    const grpcKeys = createClient(KeysService, transports.grpc);
    expect([(await grpcKeys.verifyKey({ key: withOneCredit }, auth)).code, (await grpcKeys.verifyKey({ key: withOneCredit }, auth)).code])
      .toEqual(["VALID", "USAGE_EXCEEDED"]);
    expect((await rest.v1Post("keys.verifyKey", { key: valid })).body.code).toBe("VALID");
    expect((await createClient(KeysService, transports.connect).verifyKey({ key: valid }, auth)).code).toBe("VALID");

    await keyward.stores.events.flush();
    const after = await scrape(keyward.baseUrl);

    expect(deltas(before, after, "keyward_requests_total")).toEqual({
      [requests("rest-v2", "ApisService.GetApi", "200")]: 3,
      [requests("rest-v2", "ApisService.GetApi", "401")]: 1,
      [requests("rest-v1", "ApisService.GetApi", "200")]: 2,
      [requests("rest-v2", "unknown", "404")]: 1,
      [requests("http", "unknown", "404")]: 1,
      [requests("grpc", "ApisService.GetApi", "ok")]: 2,
      [requests("grpc", "ApisService.GetApi", "not_found")]: 1,
      [requests("connect", "ApisService.GetApi", "ok")]: 2,
      [requests("grpc-web", "ApisService.GetApi", "ok")]: 1,
      [requests("rest-v2", "KeysService.VerifyKey", "200")]: 4,
      [requests("grpc", "KeysService.VerifyKey", "ok")]: 2,
      [requests("rest-v1", "KeysService.VerifyKeyV1", "200")]: 1,
      [requests("connect", "KeysService.VerifyKey", "ok")]: 1,
    });
    expect(deltas(before, after, "keyward_request_duration_seconds_count")).toEqual({
      [durations("rest-v2", "ApisService.GetApi")]: 4,
      [durations("rest-v1", "ApisService.GetApi")]: 2,
      [durations("rest-v2", "unknown")]: 1,
      [durations("http", "unknown")]: 1,
      [durations("grpc", "ApisService.GetApi")]: 3,
      [durations("connect", "ApisService.GetApi")]: 2,
      [durations("grpc-web", "ApisService.GetApi")]: 1,
      [durations("rest-v2", "KeysService.VerifyKey")]: 4,
      [durations("grpc", "KeysService.VerifyKey")]: 2,
      [durations("rest-v1", "KeysService.VerifyKeyV1")]: 1,
      [durations("connect", "KeysService.VerifyKey")]: 1,
    });
    expect(deltas(before, after, "keyward_verifications_total")).toEqual({
      [series("keyward_verifications_total", { code: "VALID" })]: 5,
      [series("keyward_verifications_total", { code: "NOT_FOUND" })]: 1,
      [series("keyward_verifications_total", { code: "DISABLED" })]: 1,
      [series("keyward_verifications_total", { code: "USAGE_EXCEEDED" })]: 1,
    });
    // Four keys looked up once each (the unknown one cached as unknown), then served from the cache; the root key was
    // cached while seeding, so each of the 18 authenticated calls hit.
    expect(deltas(before, after, "keyward_cache_")).toEqual({
      [series("keyward_cache_misses_total", { cache: "keys" })]: 4,
      [series("keyward_cache_hits_total", { cache: "keys" })]: 4,
      [series("keyward_cache_entries", { cache: "keys" })]: 4,
      [series("keyward_cache_hits_total", { cache: "root_keys" })]: 18,
    });
    // Only the key with credits touched the counters, once per verification.
    const storeCounts = deltas(before, after, "keyward_store_operation_duration_seconds_count");
    expect(storeCounts[series("keyward_store_operation_duration_seconds_count", { store: "counters", operation: "consume" })]).toBe(2);
    expect(Object.keys(storeCounts).filter((k) => k.includes('store="counters"'))).toHaveLength(1);
    expect(storeCounts[series("keyward_store_operation_duration_seconds_count", { store: "documents", operation: "keys.findByHash" })]).toBe(4);
    expect(deltas(before, after, "keyward_store_errors_total")).toEqual({});
    // Every verification but NOT_FOUND is an event; all written after the flush.
    expect(deltas(before, after, "keyward_buffer_")).toEqual({
      [series("keyward_buffer_written_total", { buffer: "verification_events" })]: 7,
    });
    expect(after.get(series("keyward_buffer_size", { buffer: "verification_events" }))).toBe(0);
  });
});
