import { describe, expect, it } from "vitest";
import { RPC_VIAS } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, viaClient, type ViaClient } from "../../support/vias.js";

const RL_ID = expect.stringMatching(/^rl_/);
const requests = { name: "requests", limit: 10, duration: 60_000, autoApply: true };

describe("identities.updateIdentity", () => {
  const harness = useKeyward();
  const via = (name: ViaClient["via"]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
  const stored = (id: string) => harness.keyward.documents.identities.get(harness.keyward.workspaceId, id);

  async function created(externalId: string) {
    return (await via("v2").ok("identities.createIdentity", { externalId, meta: { plan: "free" }, ratelimits: [requests] })).identityId as string;
  }

  it("v2 replaces meta and rate limits and answers {meta, data: identity}, by id or by external id", async () => {
    for (const by of ["id", "externalId"] as const) {
      const externalId = `upd_v2_${by}`;
      const id = await created(externalId);
      harness.clock.advance(1000);
      harness.writes.clear();
      const response = await harness.rest.v2("identities.updateIdentity", {
        identity: by === "id" ? id : externalId, meta: { plan: "pro", seats: 5 },
        ratelimits: [{ name: "search", limit: 3, duration: 1000 }],
      }, harness.keyward.rootKey);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: {
          meta: { requestId: expect.stringMatching(REQUEST_ID) },
          data: { id, externalId, meta: { plan: "pro", seats: 5 }, ratelimits: [{ id: RL_ID, name: "search", limit: 3, duration: 1000, autoApply: false }] },
        },
      });
      expect(harness.writes.writes).toEqual([{ call: "identities.replace", id }]);
      expect(await stored(id)).toMatchObject({ meta: { plan: "pro", seats: 5 }, ratelimits: [expect.objectContaining({ name: "search" })], updatedAt: harness.clock.now() });
    }
  });

  it("v1 updates by identityId or externalId and answers the bare v1 identity", async () => {
    const id = await created("upd_v1");
    for (const reference of [{ identityId: id }, { externalId: "upd_v1" }]) {
      const response = await harness.rest.v1Post("identities.updateIdentity", {
        ...reference, environment: "default", meta: { via: "v1" }, ratelimits: [{ name: "requests", limit: 20, duration: 2000 }],
      }, harness.keyward.rootKey);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200, body: { id, externalId: "upd_v1", meta: { via: "v1" }, ratelimits: [{ name: "requests", limit: 20, duration: 2000 }] },
      });
    }
  });

  it("keeps what the request leaves out, and clears meta with {} and the limits with []", async () => {
    const id = await created("upd_partial");
    const original = (await stored(id))!;
    await via("v2").ok("identities.updateIdentity", { identity: id, meta: { plan: "team" } });
    expect(await stored(id)).toMatchObject({ meta: { plan: "team" }, ratelimits: original.ratelimits });
    await via("v1").ok("identities.updateIdentity", { identityId: id, ratelimits: [{ ...requests, limit: 99 }] });
    // A limit that keeps its name keeps its id.
    expect(await stored(id)).toMatchObject({ meta: { plan: "team" }, ratelimits: [{ ...requests, limit: 99, id: original.ratelimits[0].id }] });
    const cleared = await via("v2").ok("identities.updateIdentity", { identity: id, meta: {}, ratelimits: [] });
    expect(cleared).toEqual({ id, externalId: "upd_partial", meta: {}, ratelimits: [] });
    const record = (await stored(id))!;
    expect({ meta: record.meta, ratelimits: record.ratelimits }).toEqual({ meta: undefined, ratelimits: [] });
  });

  it("Connect, gRPC and gRPC-Web update with or without an update mask and return the Identity message", async () => {
    for (const name of RPC_VIAS) {
      const id = await created(`upd_${name}`);
      const unmasked = await via(name).ok("identities.updateIdentity", { identity: id, meta: { n: 1 } });
      expect(unmasked.identity).toMatchObject({ id, meta: { n: 1 }, ratelimits: [expect.objectContaining({ name: "requests", limit: 10n })] });
      // With a mask, a listed field that is unset in the request is cleared: here the rate limits.
      const masked = await via(name).ok("identities.updateIdentity", { identity: id, updateMask: "ratelimits" });
      expect(masked.identity).toMatchObject({ id, meta: { n: 1 }, ratelimits: [] });
    }
  });

  it("serves a root key holding update_identity for exactly this identity", async () => {
    const id = await created("upd_scoped");
    const { key } = await harness.seed.rootKey([`identity.${id}.update_identity`]);
    const data = await via("v2").ok("identities.updateIdentity", { identity: "upd_scoped", meta: { scoped: true } }, key);
    expect(data.meta).toEqual({ scoped: true });
  });
});
