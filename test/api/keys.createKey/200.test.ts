import { describe, expect, it } from "vitest";
import { BASE58_ALPHABET } from "../../../src/domain/base58.js";
import { hashKey } from "../../../src/domain/key-material.js";
import { apiKeys, dataOf, keyState, verifyCode } from "../../support/key-state.js";
import { callOperation, OPERATIONS } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** The number of bytes a standard base58 string encodes (leading "1"s are zero bytes). */
function base58Bytes(text: string): number {
  let value = 0n;
  for (const char of text) value = value * 58n + BigInt(BASE58_ALPHABET.indexOf(char));
  const zeros = text.length - text.replace(/^1+/, "").length;
  let bytes = 0;
  while (value > 0n) {
    value >>= 8n;
    bytes++;
  }
  return zeros + bytes;
}

describe("keys.createKey", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("mints `prefix_` + base58 of byteLength random bytes, with start = prefix + 4 characters, on every transport", async () => {
    const apiId = await harness.seed.api({ name: "format" });
    for (const name of ALL_VIAS) {
      for (const byteLength of [16, 32, 255]) {
        const created = dataOf("keys.createKey", await via(name).call("keys.createKey", { apiId, prefix: "sk_live", byteLength }));
        expect(created.keyId).toMatch(/^key_[1-9A-HJ-NP-Za-km-z]+$/);
        expect(created.key.startsWith("sk_live_")).toBe(true);
        const random = created.key.slice("sk_live_".length);
        expect(random).toMatch(BASE58);
        expect({ name, byteLength, decoded: base58Bytes(random) }).toEqual({ name, byteLength, decoded: byteLength });
        const { record } = await keyState(harness, created.keyId);
        expect(record).toMatchObject({ id: created.keyId, apiId, start: `sk_live_${random.slice(0, 4)}`, hash: hashKey(created.key) });
        // The secret itself is never stored.
        expect(JSON.stringify(record)).not.toContain(random);
        expect(await verifyCode(harness, created.key)).toBe("VALID");
      }
    }
  });

  it("without a prefix the key is bare base58 of 16 bytes and start is its first 4 characters", async () => {
    const apiId = await harness.seed.api({ name: "bare" });
    for (const name of ALL_VIAS) {
      const created = dataOf("keys.createKey", await via(name).call("keys.createKey", { apiId }));
      expect(created.key).toMatch(BASE58);
      expect(base58Bytes(created.key)).toBe(16);
      const got = (await harness.rest.v2("keys.getKey", { keyId: created.keyId }, harness.keyward.rootKey)).body.data;
      expect(got.start).toBe(created.key.slice(0, 4));
    }
  });

  it("stores name, meta, expires, enabled, environment, permissions and roles as given, and getKey returns them", async () => {
    const apiId = await harness.seed.api({ name: "fields" });
    // v1 (as Unkey v1) assigns only existing roles and permissions; v2 would create them.
    await harness.rest.v2("permissions.createRole", { name: "admin", permissions: ["docs.read", "docs.write"] }, harness.keyward.rootKey);
    const expires = harness.clock.now() + 86_400_000;
    const input = {
      apiId, name: "checkout service", meta: { plan: "pro", seats: 3, nested: { a: [1, 2] } }, expires, enabled: false,
      environment: "staging", permissions: ["docs.read", "docs.write"], roles: ["admin"],
    };
    for (const name of ALL_VIAS) {
      const { keyId, key } = dataOf("keys.createKey", await via(name).call("keys.createKey", input));
      const got = (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;
      expect(got).toEqual({
        keyId, start: key.slice(0, 4), apiId, workspaceId: harness.keyward.workspaceId, name: "checkout service",
        meta: input.meta, createdAt: harness.clock.now(), expires, enabled: false, environment: "staging",
        ratelimits: [], permissions: ["docs.read", "docs.write"], roles: ["admin"],
      });
      expect(await verifyCode(harness, key)).toBe("DISABLED");
    }
  });

  it("creates keys enabled, unlimited, without expiry or identity by default", async () => {
    const apiId = await harness.seed.api({ name: "defaults" });
    for (const name of ALL_VIAS) {
      const { keyId, key } = dataOf("keys.createKey", await via(name).call("keys.createKey", { apiId }));
      expect((await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data).toEqual({
        keyId, start: key.slice(0, 4), apiId, workspaceId: harness.keyward.workspaceId, createdAt: harness.clock.now(),
        enabled: true, ratelimits: [], permissions: [], roles: [],
      });
      expect(await keyState(harness, keyId)).toMatchObject({ remaining: undefined });
    }
  });

  it("creates the identity of an externalId on first use and links every later key with it to the same identity", async () => {
    const apiId = await harness.seed.api({ name: "identities" });
    const externalId = "user_42.acme-corp";
    expect(await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, externalId)).toBeUndefined();
    const identityIds = new Set<string>();
    for (const name of ALL_VIAS) {
      const { keyId } = dataOf("keys.createKey", await via(name).call("keys.createKey", { apiId, externalId }));
      const got = (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;
      expect(got.identity).toEqual({ id: expect.stringMatching(/^id_/), externalId, meta: {}, ratelimits: [] });
      identityIds.add(got.identity.id);
    }
    expect(identityIds.size).toBe(1);
    const identity = await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, externalId);
    expect(identity?.id).toBe([...identityIds][0]);
    expect(await harness.keyward.documents.identities.count(harness.keyward.workspaceId)).toBeGreaterThanOrEqual(1);
  });

  it("v1 ownerId names the identity as externalId does", async () => {
    const apiId = await harness.seed.api({ name: "owner-id" });
    const byExternal = await harness.seed.key(apiId, { externalId: "owner_7" });
    const byOwner = dataOf("keys.createKey", await via("v1").call("keys.createKey", { apiId, ownerId: "owner_7" }));
    const [a, b] = await Promise.all([keyState(harness, byExternal.keyId), keyState(harness, byOwner.keyId)]);
    expect(a.record?.identityId).toMatch(/^id_/);
    expect(b.record?.identityId).toBe(a.record?.identityId);
    const v1 = await harness.rest.v1Get("keys.getKey", { keyId: byOwner.keyId }, harness.keyward.rootKey);
    expect(v1.body).toMatchObject({ ownerId: "owner_7", identity: { id: a.record?.identityId, externalId: "owner_7" } });
  });

  it("v1 takes an ownerId of any characters, and verification returns it (F17)", async () => {
    const apiId = await harness.seed.api({ name: "owner-any" });
    const created = await harness.rest.v1Post("keys.createKey", { apiId, ownerId: "user@example.com" }, harness.keyward.rootKey);
    expect(created.status).toBe(200);
    const verified = await harness.rest.v1Post("keys.verifyKey", { key: created.body.key });
    expect(verified.body).toMatchObject({ valid: true, ownerId: "user@example.com" });
  });

  it("takes Unkey's bounds: v1 remaining 1, 256-character environments, any 128-character role names, 128-character permissions", async () => {
    const apiId = await harness.seed.api({ name: "unkey-bounds" });
    const v1 = await harness.rest.v1Post("keys.createKey", { apiId, remaining: 1, environment: "e".repeat(256) }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    expect((await keyState(harness, v1.body.keyId)).remaining).toBe(1);
    const roles = ["Billing Manager (EU)", "r".repeat(128)];
    const permissions = ["p".repeat(128)];
    const { keyId } = await via("v2").ok("keys.createKey", { apiId, roles, permissions, environment: "e".repeat(256) });
    const key = (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;
    expect({ roles: [...key.roles].sort(), environment: key.environment.length }).toEqual({ roles: [...roles].sort(), environment: 256 });
    expect(key.permissions).toEqual(permissions);
  });

  it("starts a credits balance with its refill rule: v2 monthly with refillDay, daily without", async () => {
    const apiId = await harness.seed.api({ name: "credits" });
    for (const name of ALL_VIAS.filter((n) => n !== "v1")) {
      const monthly = dataOf("keys.createKey", await via(name).call("keys.createKey", {
        apiId, credits: { remaining: 100, refill: { interval: "monthly", amount: 50, refillDay: 15 } },
      }));
      const daily = dataOf("keys.createKey", await via(name).call("keys.createKey", {
        apiId, credits: { remaining: 0, refill: { interval: "daily", amount: 10 } },
      }));
      const limited = dataOf("keys.createKey", await via(name).call("keys.createKey", { apiId, credits: { remaining: 3 } }));
      const get = async (keyId: string) => (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data.credits;
      expect(await get(monthly.keyId)).toEqual({ remaining: 100, refill: { interval: "monthly", amount: 50, refillDay: 15 } });
      expect(await get(daily.keyId)).toEqual({ remaining: 0, refill: { interval: "daily", amount: 10 } });
      expect(await get(limited.keyId)).toEqual({ remaining: 3 });
      expect(await verifyCode(harness, daily.key)).toBe("USAGE_EXCEEDED");
      expect(await verifyCode(harness, limited.key)).toBe("VALID");
      expect((await keyState(harness, limited.keyId)).remaining).toBe(2);
    }
  });

  it("v1 takes remaining and refill, defaulting a monthly refill to day 1", async () => {
    const apiId = await harness.seed.api({ name: "credits-v1" });
    const { keyId } = dataOf("keys.createKey", await via("v1").call("keys.createKey", {
      apiId, remaining: 20, refill: { interval: "monthly", amount: 20 },
    }));
    const v1 = await harness.rest.v1Get("keys.getKey", { keyId }, harness.keyward.rootKey);
    expect(v1.body).toMatchObject({ remaining: 20, refill: { interval: "monthly", amount: 20, refillDay: 1 } });
    const v2 = await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey);
    expect(v2.body.data.credits).toEqual({ remaining: 20, refill: { interval: "monthly", amount: 20, refillDay: 1 } });
  });

  it("configures named rate limits with ids, and verification applies the auto-applied ones", async () => {
    const apiId = await harness.seed.api({ name: "limits" });
    const ratelimits = [
      { name: "requests", limit: 2, duration: 60_000, autoApply: true },
      { name: "tokens", limit: 1000, duration: 3_600_000 },
    ];
    for (const name of ALL_VIAS.filter((n) => n !== "v1")) {
      const { keyId, key } = dataOf("keys.createKey", await via(name).call("keys.createKey", { apiId, ratelimits }));
      const got = (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;
      expect(got.ratelimits).toEqual([
        { id: expect.stringMatching(/^rl_/), name: "requests", limit: 2, duration: 60_000, autoApply: true },
        { id: expect.stringMatching(/^rl_/), name: "tokens", limit: 1000, duration: 3_600_000, autoApply: false },
      ]);
      expect([await verifyCode(harness, key), await verifyCode(harness, key), await verifyCode(harness, key)])
        .toEqual(["VALID", "VALID", "RATE_LIMITED"]);
    }
  });

  it("v1 ratelimit becomes the auto-applied limit named default", async () => {
    const apiId = await harness.seed.api({ name: "limits-v1" });
    const { keyId, key } = dataOf("keys.createKey", await via("v1").call("keys.createKey", {
      apiId, ratelimit: { limit: 1, duration: 5000, async: true },
    }));
    const v2 = await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey);
    expect(v2.body.data.ratelimits).toEqual([{ id: expect.stringMatching(/^rl_/), name: "default", limit: 1, duration: 5000, autoApply: true }]);
    const v1 = await harness.rest.v1Get("keys.getKey", { keyId }, harness.keyward.rootKey);
    expect(v1.body.ratelimit).toEqual({ async: false, limit: 1, duration: 5000 });
    expect([await verifyCode(harness, key), await verifyCode(harness, key)]).toEqual(["VALID", "RATE_LIMITED"]);
  });

  it("each create adds exactly one key to the api and the key count grows by one", async () => {
    const apiId = await harness.seed.api({ name: "count" });
    for (const [i, name] of ALL_VIAS.entries()) {
      // Ids sort by creation time to the millisecond: one step per key makes creation order the list order.
      harness.clock.advance(1);
      await via(name).ok("keys.createKey", { apiId, name: `k${i}` });
      expect((await apiKeys(harness, apiId)).map((k) => k.name)).toEqual(ALL_VIAS.slice(0, i + 1).map((_, j) => `k${j}`));
    }
    const list = await callOperation(harness.keyward.baseUrl, "v1", OPERATIONS["apis.listKeys"], { apiId }, { authorization: `Bearer ${harness.keyward.rootKey}` });
    expect(dataOf("apis.listKeys", list).total).toBe(ALL_VIAS.length);
  });

  it("serves a root key holding create_key for exactly this api", async () => {
    const apiId = await harness.seed.api({ name: "scoped" });
    const { key: rootKey } = await harness.seed.rootKey([`api.${apiId}.create_key`]);
    for (const name of ALL_VIAS) {
      const { keyId } = dataOf("keys.createKey", await via(name, rootKey).call("keys.createKey", { apiId }));
      expect((await keyState(harness, keyId)).record?.apiId).toBe(apiId);
    }
  });
});
