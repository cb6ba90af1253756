import { describe, expect, it } from "vitest";
import { keyState } from "../../support/key-state.js";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("identities.deleteIdentity and the identity's keys", () => {
  const kit = useVerifyKit();

  it("detaches every key: they keep verifying VALID without identity or identity limits, and keep their credits", async () => {
    toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { identityId } = await kit.admin.ok("identities.createIdentity", {
      externalId: "leaving", meta: { plan: "pro" }, ratelimits: [{ name: "requests", limit: 2, duration: MINUTE, autoApply: true }],
    });
    const a = await kit.admin.key(apiId, { externalId: "leaving", credits: { remaining: 5 } });
    const b = await kit.admin.key(apiId, { externalId: "leaving" });
    const other = await kit.admin.key(apiId, { externalId: "staying" });
    // Before: the shared limit of 2 is used up by a (cached, with its identity) and b.
    expect((await kit.verify("v2", { key: a.key })).payload).toMatchObject({ code: "VALID", credits: 4, identity: { id: identityId, externalId: "leaving" } });
    expect((await kit.verify("v1", { key: b.key })).code).toBe("VALID");
    expect((await kit.verify("v2", { key: a.key })).code).toBe("RATE_LIMITED");

    kit.harness.writes.clear();
    await kit.admin.ok("identities.deleteIdentity", { identity: "leaving" });
    // One write: the identity deleted and both keys unlinked together.
    expect(kit.harness.writes.writes.map((w) => w.call)).toEqual(["identities.markDeleted"]);

    for (const key of [a, b]) {
      const { record } = await keyState(kit.harness, key.keyId);
      expect(record?.identityId).toBeUndefined();
      expect((await kit.admin.get(key.keyId)).identity).toBeUndefined();
    }
    // No identity limit any more: both verify again within the same window; a's balance carried over.
    const v2 = await kit.verify("v2", { key: a.key });
    expect({ code: v2.code, credits: v2.credits, identity: v2.payload.identity, ratelimits: v2.payload.ratelimits })
      .toEqual({ code: "VALID", credits: 3, identity: undefined, ratelimits: [] });
    const v1 = await kit.verify("v1", { key: b.key });
    expect({ code: v1.code, identity: v1.payload.identity, ownerId: v1.payload.ownerId }).toEqual({ code: "VALID", identity: undefined, ownerId: undefined });
    expect((await kit.verify("legacy", { key: a.key })).payload).toMatchObject({ valid: true, remaining: 2 });
    expect(await kit.admin.balance(a.keyId)).toBe(2);
    // A key of another identity is untouched.
    expect((await kit.verify("v2", { key: other.key })).payload.identity).toMatchObject({ externalId: "staying" });
  });

  it("a new identity with the freed external id does not adopt the detached keys", async () => {
    const apiId = await kit.admin.api();
    const old = await kit.admin.key(apiId, { externalId: "reused" });
    await kit.admin.ok("identities.deleteIdentity", { identity: "reused" });
    const { identityId } = await kit.admin.ok("identities.createIdentity", { externalId: "reused" });
    expect((await kit.verify("v2", { key: old.key })).payload.identity).toBeUndefined();
    const fresh = await kit.admin.key(apiId, { externalId: "reused" });
    expect((await kit.verify("v2", { key: fresh.key })).payload.identity).toMatchObject({ id: identityId });
  });
});
