import { describe, expect, it } from "vitest";
import { RPC_VIAS } from "../../support/operations.js";
import { toNextWindow, useVerifyKit, VERIFY_VIAS } from "../../support/verify-key.js";
import { viaClient } from "../../support/vias.js";

const MINUTE = 60_000;
const shared = { name: "requests", limit: 10, duration: MINUTE, autoApply: true };

describe("keys.verifyKey with identities made by identities.createIdentity", () => {
  const kit = useVerifyKit();
  const rpc = (via: (typeof RPC_VIAS)[number]) => viaClient(kit.harness.keyward.baseUrl, via, kit.harness.keyward.rootKey);

  it("two keys of one identity share its 10-per-minute limit: 10 VALID in total, then RATE_LIMITED for both on every door", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { identityId } = await kit.admin.ok("identities.createIdentity", { externalId: "acme", meta: { tier: "gold" }, ratelimits: [shared] });
    const a = await kit.admin.key(apiId, { externalId: "acme" });
    const b = await kit.admin.key(apiId, { externalId: "acme" });

    const codes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const key = i % 2 === 0 ? a.key : b.key;
      codes.push((await kit.verify(VERIFY_VIAS[i % 3], { key })).code);
      kit.harness.clock.advance(1000);
    }
    expect(codes).toEqual(Array(10).fill("VALID"));

    for (const key of [a.key, b.key]) {
      for (const via of VERIFY_VIAS) expect((await kit.verify(via, { key })).code).toBe("RATE_LIMITED");
      for (const via of RPC_VIAS) expect((await rpc(via).ok("keys.verifyKey", { key })).code).toBe("RATE_LIMITED");
    }
    const denied = await kit.verify("v2", { key: b.key });
    expect({ identity: denied.payload.identity, ratelimits: denied.payload.ratelimits }).toEqual({
      identity: { id: identityId, externalId: "acme", meta: { tier: "gold" }, ratelimits: [{ ...shared, id: expect.stringMatching(/^rl_/) }] },
      ratelimits: [{ exceeded: true, id: expect.stringMatching(/^rl_/), name: "requests", limit: 10, duration: MINUTE, reset: start + MINUTE, remaining: 0, autoApply: true }],
    });
    const v1 = await kit.verify("v1", { key: a.key });
    expect({ ownerId: v1.payload.ownerId, identity: v1.payload.identity }).toEqual({ ownerId: "acme", identity: { id: identityId, externalId: "acme", meta: { tier: "gold" } } });

    // Once the sliding window has passed, they are served again.
    toNextWindow(kit.harness.clock, MINUTE);
    toNextWindow(kit.harness.clock, MINUTE);
    expect((await kit.verify("v2", { key: b.key })).code).toBe("VALID");
  });

  it("a key's own limit of the same name wins over the identity's, and counts only that key", async () => {
    toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    await kit.admin.ok("identities.createIdentity", { externalId: "overridden", ratelimits: [shared] });
    const plain = await kit.admin.key(apiId, { externalId: "overridden" });
    const strict = await kit.admin.key(apiId, { externalId: "overridden", ratelimits: [{ ...shared, limit: 3 }] });
    const strictCodes: string[] = [];
    for (let i = 0; i < 5; i++) strictCodes.push((await kit.verify("v2", { key: strict.key })).code);
    expect(strictCodes).toEqual(["VALID", "VALID", "VALID", "RATE_LIMITED", "RATE_LIMITED"]);
    // The strict key's verifications did not touch the identity's window: the plain key still has all 10.
    const plainCodes: string[] = [];
    for (let i = 0; i < 11; i++) plainCodes.push((await kit.verify("v1", { key: plain.key })).code);
    expect(plainCodes).toEqual([...Array(10).fill("VALID"), "RATE_LIMITED"]);
  });

  it("an identity update reaches verification at once, cached keys included", async () => {
    toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    await kit.admin.ok("identities.createIdentity", { externalId: "changing", meta: { v: 1 }, ratelimits: [shared] });
    const key = await kit.admin.key(apiId, { externalId: "changing" });
    expect((await kit.verify("v2", { key: key.key })).payload.identity.meta).toEqual({ v: 1 }); // now cached
    await kit.admin.ok("identities.updateIdentity", { identity: "changing", meta: { v: 2 }, ratelimits: [{ ...shared, limit: 2 }] });
    const after = await kit.verify("v2", { key: key.key });
    expect({ code: after.code, meta: after.payload.identity.meta, limit: after.payload.ratelimits[0].limit, remaining: after.payload.ratelimits[0].remaining })
      .toEqual({ code: "VALID", meta: { v: 2 }, limit: 2, remaining: 0 });
    expect((await kit.verify("v1", { key: key.key })).code).toBe("RATE_LIMITED");
    await kit.admin.ok("identities.updateIdentity", { identity: "changing", ratelimits: [] });
    expect((await kit.verify("v1", { key: key.key })).code).toBe("VALID");
  });

  it("a key linked by updateKey's externalId reports the identity in verify and getKey, in v1 and v2", async () => {
    const apiId = await kit.admin.api();
    const { identityId } = await kit.admin.ok("identities.createIdentity", { externalId: "linked_later", meta: { org: 1 } });
    const key = await kit.admin.key(apiId);
    expect((await kit.verify("v2", { key: key.key })).payload.identity).toBeUndefined();
    await kit.admin.update({ keyId: key.keyId, externalId: "linked_later" });
    expect((await kit.verify("v2", { key: key.key })).payload.identity).toEqual({ id: identityId, externalId: "linked_later", meta: { org: 1 }, ratelimits: [] });
    expect((await kit.admin.get(key.keyId)).identity).toEqual({ id: identityId, externalId: "linked_later", meta: { org: 1 }, ratelimits: [] });
    const v1 = await kit.harness.rest.v1Get("keys.getKey", { keyId: key.keyId }, kit.harness.keyward.rootKey);
    expect({ ownerId: v1.body.ownerId, identity: v1.body.identity }).toEqual({ ownerId: "linked_later", identity: { id: identityId, externalId: "linked_later", meta: { org: 1 } } });
  });
});
