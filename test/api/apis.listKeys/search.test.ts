import { describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.listKeys search", () => {
  const harness = useKeyward();
  const list = async (body: Record<string, unknown>, rootKey = harness.keyward.rootKey) => harness.rest.v2("apis.listKeys", body, rootKey);

  it("finds keys by name, id, start or their identity's external id, ignoring case, across pages, with total counting matches only", async () => {
    const apiId = await harness.seed.api({ name: "searched" });
    const otherApi = await harness.seed.api({ name: "searched-other" });
    const made: { keyId: string; key: string }[] = [];
    for (let i = 0; i < 12; i++) {
      made.push(await harness.seed.key(apiId, { name: i % 3 === 0 ? `Billing-${i}` : `worker-${i}`, ...(i === 7 && { externalId: "Tenant_ACME" }) }));
    }
    await harness.seed.key(otherApi, { name: "billing-elsewhere" });
    const names = (body: any) => body.data.map((k: any) => k.name);

    const billing = (await list({ apiId, search: "BILLING" })).body;
    expect([...names(billing)].sort()).toEqual(["Billing-0", "Billing-3", "Billing-6", "Billing-9"]);
    expect(billing.pagination.hasMore).toBe(false);
    // The total (Connect and gRPC answer it) counts the matching keys only.
    const rpc = rpcClient(ApisService, rpcTransports(harness.keyward.baseUrl).connect);
    expect((await rpc.listKeys({ apiId, search: "billing", limit: 1 }, bearer(harness.keyward.rootKey))).total).toBe(4n);
    // Paged: two by two, the cursor continues the search.
    const first = (await list({ apiId, search: "billing", limit: 2 })).body;
    const second = (await list({ apiId, search: "billing", limit: 2, cursor: first.pagination.cursor })).body;
    expect([...names(first), ...names(second)]).toEqual(names(billing));
    expect([first.pagination.hasMore, second.pagination.hasMore]).toEqual([true, false]);

    expect(names((await list({ apiId, search: made[5].keyId.slice(-10).toLowerCase() })).body)).toEqual(["worker-5"]);
    const start = (await list({ apiId })).body.data.find((k: any) => k.keyId === made[4].keyId).start;
    expect((await list({ apiId, search: start })).body.data.map((k: any) => k.keyId)).toContain(made[4].keyId);
    expect(names((await list({ apiId, search: "acme" })).body)).toEqual(["worker-7"]);
    // Taken literally: "." and "*" are no patterns.
    expect((await list({ apiId, search: "worker.1" })).body.data).toEqual([]);
    expect((await list({ apiId, search: ".*" })).body.data).toEqual([]);
    // Combined with externalId, both apply.
    expect(names((await list({ apiId, externalId: "Tenant_ACME", search: "worker" })).body)).toEqual(["worker-7"]);
    expect((await list({ apiId, externalId: "Tenant_ACME", search: "billing" })).body.data).toEqual([]);
  });

  it("refuses an empty or over-long search with a 400 naming the field", async () => {
    const apiId = await harness.seed.api({ name: "searched-bad" });
    for (const search of ["", "x".repeat(257)]) {
      const answer = await list({ apiId, search });
      expect([answer.status, answer.body.error.detail]).toEqual([400, expect.stringContaining("search")]);
    }
  });
});
