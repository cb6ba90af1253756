import { describe, expect, it } from "vitest";
import { dataOf, keyState, verifyCode } from "../../support/key-state.js";
import type { Via } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, V2_AND_RPC, viaClient } from "../../support/vias.js";

type Json = Record<string, any>;

/**
 * REST derives the update mask from the body (null = clear). The RPC protocols say the same with an explicit
 * `updateMask`: a listed field takes the request's value, or is cleared when the request leaves it unset.
 */
function asRpc(patch: Json): Json {
  const paths: string[] = [];
  const body: Json = {};
  for (const [field, value] of Object.entries(patch)) {
    if (field === "keyId") continue;
    if (field === "credits" && value && typeof value === "object" && Object.keys(value).length > 0) {
      for (const [sub, subValue] of Object.entries(value)) {
        paths.push(`credits.${sub}`);
        if (subValue !== null) (body.credits ??= {})[sub] = subValue;
      }
      continue;
    }
    paths.push(field);
    if (value !== null) body[field] = value;
  }
  return { keyId: patch.keyId, ...body, updateMask: paths.join(",") };
}

/** Stringify-able int64s for RPC JSON input. */
const rpcJson = (value: Json) => JSON.parse(JSON.stringify(value));

describe("keys.updateKey", () => {
  const harness = useKeyward();
  const client = (name: Via, rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);
  const update = async (name: Via, patch: Json) => {
    const input = name === "v2" || name === "v1" ? patch : rpcJson(asRpc(patch));
    return dataOf("keys.updateKey", await client(name).call("keys.updateKey", input));
  };
  const view = async (keyId: string) => dataOf("keys.getKey", await client("v2").call("keys.getKey", { keyId }));

  const future = () => harness.clock.now() + 86_400_000;
  const initial = () => ({
    name: "original", meta: { plan: "free" }, expires: future(), externalId: "owner_a", environment: "test", enabled: true,
    credits: { remaining: 10, refill: { interval: "daily", amount: 10 } },
    ratelimits: [{ name: "requests", limit: 5, duration: 60_000, autoApply: true }],
  });
  async function seeded() {
    const apiId = await harness.seed.api({ name: "updates" });
    const { keyId, key } = await harness.seed.key(apiId, initial());
    return { apiId, keyId, key };
  }

  it("answers an empty payload: v2 {meta, data: {}}, v1 {}, RPC an empty message", async () => {
    const { keyId } = await seeded();
    const v2 = await harness.rest.v2("keys.updateKey", { keyId, name: "x" }, harness.keyward.rootKey);
    expect(v2.body).toEqual({ meta: { requestId: v2.headers.get("x-request-id") }, data: {} });
    const v1 = await harness.rest.v1Post("keys.updateKey", { keyId, name: "y" }, harness.keyward.rootKey);
    expect({ status: v1.status, body: v1.body }).toEqual({ status: 200, body: {} });
    for (const name of ["connect", "grpc", "grpcWeb"] as const) expect(await update(name, { keyId, name: "z" })).toEqual({});
  });

  it("changes only the fields present: absent fields keep their values, and updatedAt is the time of the change", async () => {
    for (const name of ALL_VIAS) {
      const { keyId } = await seeded();
      const before = await view(keyId);
      harness.clock.advance(1000);
      await update(name, { keyId, name: `renamed by ${name}` });
      expect(await view(keyId)).toEqual({ ...before, name: `renamed by ${name}`, updatedAt: harness.clock.now() });
    }
  });

  // For each field: a value sets it, null clears it (REST) or an empty masked field clears it (RPC).
  const fields: { field: string; value: () => unknown; set: (data: Json) => unknown; cleared: (data: Json) => unknown; vias: Via[] }[] = [
    { field: "name", value: () => "new name", set: (d) => d.name, cleared: (d) => d.name, vias: ALL_VIAS },
    { field: "meta", value: () => ({ plan: "pro", seats: 9 }), set: (d) => d.meta, cleared: (d) => d.meta, vias: ALL_VIAS },
    { field: "expires", value: () => harness.clock.now() + 3_600_000, set: (d) => d.expires, cleared: (d) => d.expires, vias: ALL_VIAS },
    { field: "environment", value: () => "production", set: (d) => d.environment, cleared: (d) => d.environment, vias: ALL_VIAS },
    {
      field: "externalId", value: () => "owner_b", set: (d) => d.identity?.externalId, cleared: (d) => d.identity, vias: ALL_VIAS,
    },
    {
      field: "credits", value: () => ({ remaining: 3 }), set: (d) => d.credits, cleared: (d) => d.credits, vias: V2_AND_RPC,
    },
    {
      field: "ratelimits", value: () => [{ name: "burst", limit: 1, duration: 1000 }],
      set: (d) => d.ratelimits.map(({ id: _id, ...rest }: Json) => rest), cleared: (d) => d.ratelimits, vias: V2_AND_RPC,
    },
  ];
  const expectedSet: Record<string, (value: any) => unknown> = {
    // A nested body names sub-fields: the refill the request leaves out stays.
    credits: () => ({ remaining: 3, refill: { interval: "daily", amount: 10 } }),
    ratelimits: () => [{ name: "burst", limit: 1, duration: 1000, autoApply: false }],
  };
  const expectedCleared: Record<string, unknown> = { ratelimits: [] };

  for (const f of fields) {
    it(`${f.field}: a value sets it and null clears it, leaving every other field as it was (${f.vias.join(", ")})`, async () => {
      for (const name of f.vias) {
        const { keyId } = await seeded();
        const before = await view(keyId);
        const value = f.value();
        await update(name, { keyId, [f.field]: value });
        const afterSet = await view(keyId);
        expect({ name, value: f.set(afterSet) }).toEqual({ name, value: (expectedSet[f.field] ?? ((v: unknown) => v))(value) });
        await update(name, { keyId, [f.field]: null });
        const afterClear = await view(keyId);
        expect({ name, value: f.cleared(afterClear) }).toEqual({ name, value: expectedCleared[f.field] });
        // Nothing else moved.
        const untouched = (data: Json) => {
          const { updatedAt: _u, [f.field === "externalId" ? "identity" : f.field]: _f, ...rest } = data;
          return rest;
        };
        expect(untouched(afterClear)).toEqual(untouched(before));
      }
    });
  }

  it("enabled: false disables the key, true enables it, and null leaves it as it is", async () => {
    for (const name of ALL_VIAS) {
      const { keyId } = await seeded();
      await update(name, { keyId, enabled: false });
      expect((await view(keyId)).enabled).toBe(false);
      await update(name, { keyId, enabled: null });
      expect((await view(keyId)).enabled).toBe(false);
      await update(name, { keyId, enabled: true });
      expect((await view(keyId)).enabled).toBe(true);
    }
  });

  it("credits.refill: a rule replaces the refill and keeps the balance; null removes the refill and keeps the balance", async () => {
    for (const name of V2_AND_RPC) {
      const { keyId } = await seeded();
      await update(name, { keyId, credits: { refill: { interval: "monthly", amount: 25, refillDay: 31 } } });
      expect((await view(keyId)).credits).toEqual({ remaining: 10, refill: { interval: "monthly", amount: 25, refillDay: 31 } });
      await update(name, { keyId, credits: { refill: null } });
      expect((await view(keyId)).credits).toEqual({ remaining: 10 });
      await update(name, { keyId, credits: { remaining: 4, refill: { interval: "daily", amount: 4 } } });
      expect((await view(keyId)).credits).toEqual({ remaining: 4, refill: { interval: "daily", amount: 4 } });
      await update(name, { keyId, credits: { remaining: 8 } });
      expect((await view(keyId)).credits).toEqual({ remaining: 8, refill: { interval: "daily", amount: 4 } });
    }
  });

  it("credits on an unlimited key starts a balance", async () => {
    const apiId = await harness.seed.api({ name: "unlimited" });
    for (const name of V2_AND_RPC) {
      const { keyId, key } = await harness.seed.key(apiId);
      await update(name, { keyId, credits: { remaining: 1 } });
      expect((await view(keyId)).credits).toEqual({ remaining: 1 });
      expect([await verifyCode(harness, key), await verifyCode(harness, key)]).toEqual(["VALID", "USAGE_EXCEEDED"]);
    }
  });

  it("externalId moves the key to another identity, created on demand, carrying its balance; null detaches it", async () => {
    for (const name of ALL_VIAS) {
      const { keyId, key } = await seeded();
      expect(await verifyCode(harness, key)).toBe("VALID");
      const externalId = `moved_${name}`;
      await update(name, { keyId, externalId });
      const identity = await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, externalId);
      expect(identity).toBeDefined();
      expect(await view(keyId)).toMatchObject({ identity: { id: identity?.id, externalId }, credits: { remaining: 9 } });
      expect(await keyState(harness, keyId)).toMatchObject({ record: { identityId: identity?.id }, remaining: 9 });
      await update(name, { keyId, externalId: null });
      const after = await keyState(harness, keyId);
      expect(after.record?.identityId).toBeUndefined();
      expect(after.remaining).toBe(9);
      expect(await verifyCode(harness, key)).toBe("VALID");
      expect((await keyState(harness, keyId)).remaining).toBe(8);
    }
  });

  it("the next verification sees each change at once: disabled, expired, out of credits, unlimited, rate limited", async () => {
    for (const name of ALL_VIAS) {
      const { keyId, key } = await seeded();
      expect(await verifyCode(harness, key)).toBe("VALID"); // now cached
      await update(name, { keyId, enabled: false });
      expect(await verifyCode(harness, key)).toBe("DISABLED");
      await update(name, { keyId, enabled: true });
      expect(await verifyCode(harness, key)).toBe("VALID");
      await update(name, { keyId, expires: harness.clock.now() - 1 });
      expect(await verifyCode(harness, key)).toBe("EXPIRED");
      await update(name, { keyId, expires: null });
      expect(await verifyCode(harness, key)).toBe("VALID");
      if (name !== "v1") {
        await update(name, { keyId, credits: { remaining: 0 } });
        expect(await verifyCode(harness, key)).toBe("USAGE_EXCEEDED");
        await update(name, { keyId, credits: null });
        expect(await verifyCode(harness, key)).toBe("VALID");
        await update(name, { keyId, ratelimits: [{ name: "tight", limit: 1, duration: 60_000, autoApply: true }] });
        expect([await verifyCode(harness, key), await verifyCode(harness, key)]).toEqual(["VALID", "RATE_LIMITED"]);
        await update(name, { keyId, ratelimits: [] });
        expect(await verifyCode(harness, key)).toBe("VALID");
      }
    }
  });

  it("RPC without an update mask changes every field the request sets and nothing else", async () => {
    for (const name of ["connect", "grpc", "grpcWeb"] as const) {
      const { keyId } = await seeded();
      const before = await view(keyId);
      await client(name).ok("keys.updateKey", { keyId, name: "no mask", environment: "qa" });
      expect(await view(keyId)).toEqual({ ...before, name: "no mask", environment: "qa", updatedAt: harness.clock.now() });
    }
  });

  it("v1 maps ownerId, remaining, refill and ratelimit, each cleared by null", async () => {
    const { keyId, key } = await seeded();
    const v1 = (patch: Json) => update("v1", { keyId, ...patch });
    const get = async () => dataOf("keys.getKey", await client("v1").call("keys.getKey", { keyId }));
    await v1({ ownerId: "v1_owner", remaining: 30, refill: { interval: "monthly", amount: 30 }, ratelimit: { limit: 2, duration: 5000 } });
    expect(await get()).toMatchObject({
      ownerId: "v1_owner", identity: { externalId: "v1_owner" }, remaining: 30, refill: { interval: "monthly", amount: 30, refillDay: 1 },
      ratelimit: { async: false, limit: 2, duration: 5000 },
    });
    expect((await view(keyId)).ratelimits).toEqual([{ id: expect.stringMatching(/^rl_/), name: "default", limit: 2, duration: 5000, autoApply: true }]);
    await v1({ refill: null });
    expect(await get()).toMatchObject({ remaining: 30 });
    expect((await get()).refill).toBeUndefined();
    await v1({ ratelimit: null });
    expect((await get()).ratelimit).toBeUndefined();
    expect((await view(keyId)).ratelimits).toEqual([]);
    await v1({ ownerId: null });
    expect((await get()).ownerId).toBeUndefined();
    expect((await get()).identity).toBeUndefined();
    await v1({ remaining: null });
    const final = await get();
    expect(final.remaining).toBeUndefined();
    expect(final.refill).toBeUndefined();
    expect(await verifyCode(harness, key)).toBe("VALID");
    expect(await keyState(harness, keyId)).toMatchObject({ remaining: undefined });
  });
});
