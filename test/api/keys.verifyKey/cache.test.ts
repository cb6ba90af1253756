import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey cache on one instance", () => {
  const kit = useVerifyKit();

  /** A key verified once, so the instance holds it in its cache. */
  async function cachedKey(fields: Record<string, unknown> = {}) {
    const apiId = await kit.admin.api();
    const created = await kit.admin.key(apiId, fields);
    expect((await kit.verify("v2", { key: created.key })).code).toBe("VALID");
    return { apiId, ...created };
  }

  it("holds keys in the cache: a document changed behind the service's back is not seen", async () => {
    const { keyId, key } = await cachedKey({ name: "before" });
    const { documents, workspaceId } = kit.harness.keyward;
    const record = await documents.keys.get(workspaceId, keyId);
    expect(await documents.keys.replace({ ...record!, enabled: false, name: "behind-the-back" })).toBe(true);
    const stale = await kit.verify("v2", { key });
    expect({ code: stale.code, name: stale.payload.name }).toEqual({ code: "VALID", name: "before" });
    // Any mutation through the API drops the entry: the next verification reads the document again.
    await kit.admin.update({ keyId, meta: { touched: true } });
    const fresh = await kit.verify("v2", { key });
    expect({ code: fresh.code, name: fresh.payload.name, meta: fresh.payload.meta }).toEqual({ code: "DISABLED", name: "behind-the-back", meta: { touched: true } });
  });

  it("sees enabled toggled by keys.updateKey at the very next verification", async () => {
    const { keyId, key } = await cachedKey();
    await kit.admin.update({ keyId, enabled: false });
    expect((await kit.verify("v2", { key })).code).toBe("DISABLED");
    expect((await kit.verify("v1", { key })).code).toBe("DISABLED");
    await kit.admin.update({ keyId, enabled: true });
    expect((await kit.verify("v1", { key })).code).toBe("VALID");
  });

  it("sees expires set and cleared at the very next verification", async () => {
    const { keyId, key } = await cachedKey();
    await kit.admin.update({ keyId, expires: kit.harness.clock.now() });
    expect((await kit.verify("v2", { key })).code).toBe("EXPIRED");
    await kit.admin.update({ keyId, expires: null });
    expect((await kit.verify("v2", { key })).code).toBe("VALID");
  });

  it("sees credits set, made unlimited and limited again at the very next verification", async () => {
    const { keyId, key } = await cachedKey({ credits: { remaining: 5 } });
    await kit.admin.ok("keys.updateCredits", { keyId, operation: "set", value: 0 });
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    await kit.admin.update({ keyId, credits: { remaining: 3 } });
    expect((await kit.verify("v2", { key })).credits).toBe(2);
    await kit.admin.update({ keyId, credits: null });
    const unlimited = await kit.verify("v2", { key, cost: 50 });
    expect({ code: unlimited.code, credits: unlimited.credits }).toEqual({ code: "VALID", credits: undefined });
    await kit.admin.ok("keys.updateCredits", { keyId, operation: "set", value: 1 });
    expect((await kit.verify("v1", { key })).credits).toBe(0);
    expect((await kit.verify("v1", { key })).code).toBe("USAGE_EXCEEDED");
  });

  it("sees rate limits, permissions, name and owner changed at the very next verification", async () => {
    const { keyId, key } = await cachedKey({ name: "old" });
    await kit.admin.update({ keyId, name: "new", externalId: "owner_cache", permissions: ["p1"], ratelimits: [{ name: "minute", limit: 1, duration: MINUTE, autoApply: true }] });
    const first = await kit.verify("v1", { key, permissions: { v1: "p1", v2: "p1" } });
    expect({ code: first.code, name: first.payload.name, ownerId: first.payload.ownerId, limit: first.payload.ratelimit?.limit })
      .toEqual({ code: "VALID", name: "new", ownerId: "owner_cache", limit: 1 });
    expect((await kit.verify("v1", { key })).code).toBe("RATE_LIMITED");
    await kit.admin.update({ keyId, ratelimits: [] });
    expect((await kit.verify("v1", { key })).code).toBe("VALID");
  });

  it("applies a cached key's automatic limits alike on every request, a named limit's cost on its request only, and changed limits at once", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    await kit.admin.ok("identities.createIdentity", { externalId: "auto_memo", ratelimits: [{ name: "team", limit: 4, duration: MINUTE, autoApply: true }] });
    const { keyId, key } = await kit.admin.key(apiId, { externalId: "auto_memo", ratelimits: [{ name: "own", limit: 10, duration: MINUTE, autoApply: true }] });
    const left = async (ratelimits?: { name: string; cost?: number }[]) => {
      const result = await kit.verify("v2", { key, ratelimits });
      return [result.code, ...result.payload.ratelimits.map((l: any) => `${l.name} ${l.limit} ${l.remaining} ${l.reset - start}`)];
    };
    expect(await left()).toEqual(["VALID", "team 4 3 60000", "own 10 9 60000"]);
    expect(await left()).toEqual(["VALID", "team 4 2 60000", "own 10 8 60000"]);
    // Named with a cost: that cost on this request only; the next unnamed request costs 1 again.
    expect(await left([{ name: "own", cost: 3 }])).toEqual(["VALID", "team 4 1 60000", "own 10 5 60000"]);
    expect(await left()).toEqual(["VALID", "team 4 0 60000", "own 10 4 60000"]);
    expect(await left()).toEqual(["RATE_LIMITED", "team 4 0 60000", "own 10 4 60000"]);
    // The identity's limit raised: the next request resolves the limits anew.
    await kit.admin.ok("identities.updateIdentity", { identity: "auto_memo", ratelimits: [{ name: "team", limit: 6, duration: MINUTE, autoApply: true }] });
    expect(await left()).toEqual(["VALID", "team 6 1 60000", "own 10 3 60000"]);
    await kit.admin.update({ keyId, ratelimits: [{ name: "team", limit: 1, duration: MINUTE, autoApply: true }] });
    // The key's limit of the same name overrides the identity's, counted per key.
    expect(await left()).toEqual(["VALID", "team 1 0 60000"]);
    expect(await left()).toEqual(["RATE_LIMITED", "team 1 0 60000"]);
  });

  it("answers NOT_FOUND right after the key is deleted", async () => {
    const { keyId, key } = await cachedKey();
    await kit.admin.ok("keys.deleteKey", { keyId });
    expect((await kit.verify("v2", { key })).payload).toEqual({ valid: false, code: "NOT_FOUND" });
    expect((await kit.verify("v1", { key })).code).toBe("NOT_FOUND");
  });

  it("answers NOT_FOUND right after the key's api is deleted", async () => {
    const { apiId, key } = await cachedKey();
    expect((await kit.verify("v1", { key })).code).toBe("VALID");
    await kit.admin.ok("apis.deleteApi", { apiId });
    expect((await kit.verify("v2", { key })).payload).toEqual({ valid: false, code: "NOT_FOUND" });
    expect((await kit.verify("legacy", { key })).code).toBe("NOT_FOUND");
  });

  it("answers NOT_FOUND for a key rerolled with expiration 0 and VALID for its successor", async () => {
    const { keyId, key } = await cachedKey();
    const rerolled = await kit.admin.ok("keys.rerollKey", { keyId, expiration: 0 });
    expect((await kit.verify("v2", { key })).code).toBe("NOT_FOUND");
    expect((await kit.verify("v2", { key: rerolled.key })).payload.keyId).toBe(rerolled.keyId);
  });
});
