import { describe, expect, it } from "vitest";
import { foreignKey, hashIn } from "../../support/imports.js";
import { apiKeys, dataOf } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

const VARIANTS = ["sha256_base64", "sha256_hex"] as const;

describe("keys.migrateKeys", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
  const verify = async (key: string, body: Record<string, unknown> = {}) =>
    (await harness.rest.v2("keys.verifyKey", { key, ...body }, harness.keyward.rootKey)).body.data;

  it("imports keys by either hash variant on every transport; each then verifies with its original secret", async () => {
    for (const name of V2_AND_RPC) {
      for (const variant of VARIANTS) {
        const apiId = await harness.seed.api({ name: `variant-${name}-${variant}` });
        const keys = [foreignKey("sk_live"), foreignKey("sk_live")];
        const data = dataOf("keys.migrateKeys", await via(name).call("keys.migrateKeys", {
          migrationId: variant, apiId, keys: keys.map((k, i) => ({ hash: hashIn(k, variant), name: `imported ${i}` })),
        }));
        expect(data.migrated).toEqual(keys.map((k) => ({ hash: hashIn(k, variant), keyId: expect.stringMatching(/^key_/) })));
        expect(data.failed ?? []).toEqual([]);
        for (const [i, k] of keys.entries()) {
          const answer = await verify(k.plaintext);
          expect({ valid: answer.valid, code: answer.code, keyId: answer.keyId, name: answer.name })
            .toEqual({ valid: true, code: "VALID", keyId: data.migrated[i].keyId, name: `imported ${i}` });
        }
        // Stored as base64(sha256): the same form a native key has, whichever encoding came in.
        const stored = await apiKeys(harness, apiId);
        expect(stored.map((r) => r.hash).sort()).toEqual(keys.map((k) => k.base64).sort());
      }
    }
  });

  it("carries every createKey field over, and verification sees each: identity, meta, environment, credits, limits, roles, permissions", async () => {
    const apiId = await harness.seed.api({ name: "fields" });
    const key = foreignKey("pk");
    const expires = harness.clock.now() + 3_600_000;
    const data = dataOf("keys.migrateKeys", await via("v2").call("keys.migrateKeys", {
      migrationId: "sha256_hex", apiId,
      keys: [{
        hash: key.hex, name: "all fields", externalId: "customer-42", meta: { plan: "pro" }, environment: "live", expires,
        enabled: true, permissions: ["docs.read", "docs.write"], roles: ["importer-admin"],
        credits: { remaining: 2, refill: { interval: "monthly", amount: 100, refillDay: 1 } },
        ratelimits: [{ name: "requests", limit: 5, duration: 60_000, autoApply: true }],
      }],
    }));
    const keyId = data.migrated[0].keyId;
    const first = await verify(key.plaintext, { permissions: "docs.read AND docs.write" });
    expect(first).toMatchObject({
      valid: true, code: "VALID", keyId, name: "all fields", meta: { plan: "pro" }, expires, enabled: true,
      credits: 1, identity: { externalId: "customer-42" }, permissions: ["docs.read", "docs.write"], roles: ["importer-admin"],
      ratelimits: [expect.objectContaining({ name: "requests", limit: 5, remaining: 4, autoApply: true })],
    });
    expect((await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data).toMatchObject({
      environment: "live", credits: { remaining: 1, refill: { interval: "monthly", amount: 100, refillDay: 1 } },
    });
    // The role was created on demand and the identity exists as a record of its own.
    expect((await harness.rest.v2("permissions.getRole", { role: "importer-admin" }, harness.keyward.rootKey)).status).toBe(200);
    expect((await harness.rest.v2("identities.getIdentity", { identity: "customer-42" }, harness.keyward.rootKey)).body.data.externalId).toBe("customer-42");
    expect((await verify(key.plaintext)).credits).toBe(0);
    expect(await verify(key.plaintext)).toMatchObject({ valid: false, code: "USAGE_EXCEEDED" });
    expect(await verify(key.plaintext, { permissions: "docs.admin" })).toMatchObject({ valid: false, code: "INSUFFICIENT_PERMISSIONS" });
    harness.clock.set(expires);
    expect(await verify(key.plaintext)).toMatchObject({ valid: false, code: "EXPIRED" });
  });

  it("a disabled import verifies as DISABLED; a rate limit counts from the first verification", async () => {
    const apiId = await harness.seed.api({ name: "disabled-and-limits" });
    const [off, limited] = [foreignKey(), foreignKey()];
    await via("connect").ok("keys.migrateKeys", {
      migrationId: "sha256_base64", apiId,
      keys: [
        { hash: off.base64, enabled: false },
        { hash: limited.base64, ratelimits: [{ name: "burst", limit: 2, duration: 60_000, autoApply: true }] },
      ],
    });
    expect(await verify(off.plaintext)).toMatchObject({ valid: false, code: "DISABLED" });
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await verify(limited.plaintext)).code);
    expect(codes).toEqual(["VALID", "VALID", "RATE_LIMITED"]);
  });

  it("partial success is 200: a hash already held by a key and a repeat within the request fail alone, with their reasons", async () => {
    for (const name of V2_AND_RPC) {
      const apiId = await harness.seed.api({ name: `partial-${name}` });
      const existing = foreignKey();
      const first = dataOf("keys.migrateKeys", await via(name).call("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: [{ hash: existing.base64 }] }));
      const [fresh, repeated] = [foreignKey(), foreignKey()];
      const data = dataOf("keys.migrateKeys", await via(name).call("keys.migrateKeys", {
        migrationId: "sha256_base64", apiId,
        keys: [{ hash: existing.base64 }, { hash: fresh.base64 }, { hash: repeated.base64, name: "first" }, { hash: repeated.base64, name: "second" }],
      }));
      expect(data.migrated).toEqual([
        { hash: fresh.base64, keyId: expect.stringMatching(/^key_/) },
        { hash: repeated.base64, keyId: expect.stringMatching(/^key_/) },
      ]);
      expect(data.failed).toEqual([existing.base64, repeated.base64]);
      expect(data.failures).toEqual([
        { hash: existing.base64, index: 0, error: "a key with this hash already exists" },
        { hash: repeated.base64, index: 3, error: "repeats the hash of keys[2]" },
      ]);
      // Never a second key: three keys in all, the existing one untouched, the repeat imported once (the first).
      const stored = await apiKeys(harness, apiId);
      expect(stored).toHaveLength(3);
      expect(stored.find((r) => r.hash === existing.base64)?.id).toBe(first.migrated[0].keyId);
      expect(stored.find((r) => r.hash === repeated.base64)?.name).toBe("first");
    }
  });

  it("a hash held by a deleted key still fails: a deleted key's hash is never reused", async () => {
    const apiId = await harness.seed.api({ name: "deleted-hash" });
    const key = foreignKey();
    const first = await via("v2").ok("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: [{ hash: key.base64 }] });
    await via("v2").ok("keys.deleteKey", { keyId: first.migrated[0].keyId });
    const again = await via("v2").ok("keys.migrateKeys", { migrationId: "sha256_hex", apiId, keys: [{ hash: key.hex }] });
    expect(again).toEqual({ migrated: [], failed: [key.hex], failures: [{ hash: key.hex, index: 0, error: "a key with this hash already exists" }] });
  });

  it("writes one key.create audit record per imported key, sharing the call's request id", async () => {
    const apiId = await harness.seed.api({ name: "audited" });
    const keys = [foreignKey(), foreignKey(), foreignKey()];
    const response = await harness.rest.v2("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: keys.map((k) => ({ hash: k.base64 })) }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-request-id");
    const records = (await (harness.keyward.stores.auditLogs ?? harness.keyward.documents.auditLogs)!.list({ workspaceId: harness.keyward.workspaceId }, { limit: 1000 }))
      .filter((r) => r.requestId === requestId);
    expect(records.map((r) => [r.action, r.resources])).toEqual(response.body.data.migrated.map((m: { keyId: string }) => [
      "key.create", [{ type: "key", id: m.keyId }, { type: "api", id: apiId }],
    ]));
  });
});
