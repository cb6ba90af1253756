import { describe, expect, it } from "vitest";
import { RPC_VIAS } from "../../support/operations.js";
import { countCodes, useVerifyKit, VERIFY_VIAS } from "../../support/verify-key.js";
import { viaClient } from "../../support/vias.js";

const DAY = 86_400_000;

describe("keys.verifyKey with credits shared by the key's identity (Keyward extension)", () => {
  const kit = useVerifyKit();
  const rpc = (via: (typeof RPC_VIAS)[number]) => viaClient(kit.harness.keyward.baseUrl, via, kit.harness.keyward.rootKey);
  const identityBalance = async (identity: string) => (await kit.admin.ok("identities.getIdentity", { identity })).credits?.remaining;

  it("3 keys of one identity share 100 credits: 500 concurrent verifications across them give exactly 100 VALID", async () => {
    const apiId = await kit.admin.api();
    await kit.admin.ok("identities.createIdentity", { externalId: "shared_100", credits: { remaining: 100 } });
    const keys = await Promise.all([0, 1, 2].map(() => kit.admin.key(apiId, { externalId: "shared_100" })));
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => kit.verify(VERIFY_VIAS[i % 3]!, { key: keys[i % 3]!.key })));
    expect(countCodes(results.map((r) => r.code))).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
    // Every VALID saw a distinct identity balance: no credit was spent twice.
    const v2Valid = results.filter((r) => r.via === "v2" && r.valid).map((r) => r.payload.identity.credits.remaining as number);
    expect(new Set(v2Valid).size).toBe(v2Valid.length);
    expect(await identityBalance("shared_100")).toBe(0);
    // The keys have no credits of their own: `credits`/`remaining` stays absent, the identity's balance shows.
    const denied = await kit.verify("v2", { key: keys[0]!.key });
    expect({ code: denied.code, credits: denied.credits, identity: denied.payload.identity.credits }).toEqual({
      code: "USAGE_EXCEEDED", credits: undefined, identity: { remaining: 0 },
    });
  });

  it("spends the key's and the identity's credits together; the shorter one refuses and nothing is spent from the other", async () => {
    const apiId = await kit.admin.api();
    const { identityId } = await kit.admin.ok("identities.createIdentity", { externalId: "both_set", credits: { remaining: 3 } });
    const { keyId, key } = await kit.admin.key(apiId, { externalId: "both_set", credits: { remaining: 10 } });

    const first = await kit.verify("v2", { key, cost: 2 });
    expect({ code: first.code, credits: first.credits, identity: first.payload.identity.credits }).toEqual({ code: "VALID", credits: 8, identity: { remaining: 1 } });
    // The identity holds 1: refused on every door, the key keeps its 8.
    for (const via of VERIFY_VIAS) {
      const refused = await kit.verify(via, { key, cost: 2 });
      expect({ code: refused.code, credits: refused.credits }).toEqual({ code: "USAGE_EXCEEDED", credits: 8 });
    }
    for (const via of RPC_VIAS) {
      const refused = await rpc(via).ok("keys.verifyKey", { key, credits: { cost: 2 } });
      expect({ code: refused.code, credits: Number(refused.credits), identity: Number(refused.identity.credits.remaining) })
        .toEqual({ code: "USAGE_EXCEEDED", credits: 8, identity: 1 });
    }
    expect(await kit.admin.balance(keyId)).toBe(8);
    expect(await identityBalance(identityId)).toBe(1);
    const v1 = await kit.verify("v1", { key, cost: 2 });
    expect({ remaining: v1.payload.remaining, identity: v1.payload.identity }).toEqual({
      remaining: 8, identity: { id: identityId, externalId: "both_set", meta: {}, credits: { remaining: 1 } },
    });

    // Now the key is the shorter one: 50 on the identity, 8 on the key, a cost of 9 is refused by the key.
    await kit.admin.ok("identities.updateIdentity", { identity: identityId, credits: { remaining: 50 } });
    const byKey = await kit.verify("v2", { key, cost: 9 });
    expect({ code: byKey.code, credits: byKey.credits, identity: byKey.payload.identity.credits }).toEqual({ code: "USAGE_EXCEEDED", credits: 8, identity: { remaining: 50 } });
    expect(await identityBalance(identityId)).toBe(50);
    const spent = await kit.verify("v1", { key, cost: 8 });
    expect({ code: spent.code, credits: spent.credits }).toEqual({ code: "VALID", credits: 0 });
    expect(await identityBalance(identityId)).toBe(42);
    // A cost of 0 passes both and spends nothing.
    expect((await kit.verify("v2", { key, cost: 0 })).code).toBe("VALID");
  });

  it("refills the identity's credits at 00:00 UTC from lastRefillAt, with no scheduler (injected clock)", async () => {
    const { clock } = kit.harness;
    const midnight = (Math.floor(clock.now() / DAY) + 1) * DAY;
    clock.set(midnight - 3_600_000);
    const apiId = await kit.admin.api();
    await kit.admin.ok("identities.createIdentity", { externalId: "refilled", credits: { remaining: 2, refill: { interval: "daily", amount: 5 } } });
    const { key } = await kit.admin.key(apiId, { externalId: "refilled" });
    expect((await kit.verify("v2", { key })).payload.identity.credits).toEqual({ remaining: 1, refill: { interval: "daily", amount: 5 } });
    expect((await kit.verify("v1", { key })).code).toBe("VALID");
    expect((await kit.verify("legacy", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(midnight - 1);
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(midnight);
    expect(await identityBalance("refilled")).toBe(5);
    const refilled = await kit.verify("v2", { key, cost: 2 });
    expect({ code: refilled.code, identity: refilled.payload.identity.credits.remaining }).toEqual({ code: "VALID", identity: 3 });
    // Several days later: one refill to `amount`, not one per day.
    clock.set(midnight + 3 * DAY + 5);
    expect((await kit.verify("v1", { key })).payload.identity.credits).toEqual({ remaining: 4, refill: { interval: "daily", amount: 5 } });
  });

  it("clearing the identity's credits makes its keys unlimited again; a key outside any identity is untouched", async () => {
    const apiId = await kit.admin.api();
    await kit.admin.ok("identities.createIdentity", { externalId: "cleared", credits: { remaining: 1 } });
    const { key } = await kit.admin.key(apiId, { externalId: "cleared" });
    const alone = await kit.admin.key(apiId);
    expect((await kit.verify("v2", { key })).code).toBe("VALID");
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    const updated = await kit.admin.ok("identities.updateIdentity", { identity: "cleared", credits: null });
    expect(updated.credits).toBeUndefined();
    const after = await kit.verify("v2", { key });
    expect({ code: after.code, identity: after.payload.identity.credits }).toEqual({ code: "VALID", identity: undefined });
    const plain = await kit.verify("v2", { key: alone.key });
    expect({ code: plain.code, credits: plain.credits, identity: plain.payload.identity }).toEqual({ code: "VALID", credits: undefined, identity: undefined });
  });

  it("deleting the identity drops its shared balance; its keys then spend only their own credits", async () => {
    const apiId = await kit.admin.api();
    const { identityId } = await kit.admin.ok("identities.createIdentity", { externalId: "deleted_shared", credits: { remaining: 0 } });
    const { keyId, key } = await kit.admin.key(apiId, { externalId: "deleted_shared", credits: { remaining: 5 } });
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    await kit.admin.ok("identities.deleteIdentity", { identity: identityId });
    expect(await kit.harness.keyward.stores.counters.readCredits(identityId, identityId)).toBeUndefined();
    const after = await kit.verify("v2", { key });
    expect({ code: after.code, credits: after.credits, identity: after.payload.identity }).toEqual({ code: "VALID", credits: 4, identity: undefined });
    expect(await kit.admin.balance(keyId)).toBe(4);
  });
});
