import { describe, expect, it } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.migrateKeys", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  /** A request of `count` good keys, then `bad` at index `count`. */
  const request = (apiId: string, bad: Record<string, unknown>, options: { count?: number; migrationId?: string } = {}) => ({
    migrationId: options.migrationId ?? "sha256_base64", apiId,
    keys: [...Array.from({ length: options.count ?? 2 }, () => ({ hash: options.migrationId === "sha256_hex" ? foreignKey().hex : foreignKey().base64 })), bad],
  });

  const cases: [string, (apiId: string) => Record<string, unknown>, RegExp][] = [
    ["a base64 hash that is not a SHA-256 digest", (apiId) => request(apiId, { hash: "abc" }), /keys\[2\]\.hash must be 44 characters/],
    ["a hex hash of the wrong length", (apiId) => request(apiId, { hash: foreignKey().hex.slice(2) }, { migrationId: "sha256_hex" }), /keys\[2\]\.hash must be 64 hex digits/],
    ["a hex hash under the base64 variant", (apiId) => request(apiId, { hash: foreignKey().hex }), /keys\[2\]\.hash must be 44/],
    ["a key with neither hash nor plaintext", (apiId) => request(apiId, { name: "no hash" }), /keys\[2\]\.hash is required/],
    ["a migration id that is not a variant", (apiId) => request(apiId, { hash: foreignKey().base64 }, { migrationId: "your_company" }), /migrationId/],
    ["a monthly refill without its day", (apiId) => request(apiId, { hash: foreignKey().base64, credits: { remaining: 5, refill: { interval: "monthly", amount: 5 } } }), /refillDay/],
    ["two limits of one key with the same name", (apiId) => request(apiId, {
      hash: foreignKey().base64, ratelimits: [{ name: "a", limit: 1, duration: 1000 }, { name: "a", limit: 2, duration: 1000 }],
    }), /Two rate limits are named "a"/],
  ];

  for (const [what, body, detail] of cases) {
    it(`refuses ${what} with 400 naming the key, on every transport, and imports none of the request`, async () => {
      const apiId = await harness.seed.api({ name: what });
      for (const name of V2_AND_RPC) {
        await expectKeysUnchanged(harness, { apiIds: [apiId] }, () => via(name).fails("keys.migrateKeys", body(apiId), "invalid", { detail }));
      }
      expect(await apiKeys(harness, apiId)).toEqual([]);
    });
  }

  it("names the field in the v2 error list: body.keys[i].hash", async () => {
    const apiId = await harness.seed.api({ name: "location" });
    const response = await harness.rest.v2("keys.migrateKeys", request(apiId, { hash: "not-a-digest" }, { count: 1 }), harness.keyward.rootKey);
    expect(response.status).toBe(400);
    expect(response.body.error.errors).toEqual([{ location: "body.keys[1].hash", message: "must be 44 characters of standard base64 (a SHA-256 digest)" }]);
  });

  it("refuses more than 1000 keys with 400 (nothing imported), and takes exactly 1000", async () => {
    const apiId = await harness.seed.api({ name: "size" });
    const keys = Array.from({ length: 1001 }, () => ({ hash: foreignKey().base64 }));
    await expectKeysUnchanged(harness, { apiIds: [apiId] }, () => via("v2").fails("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys }, "invalid", { detail: /keys/ }));
    await via("grpc").fails("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys }, "invalid", { detail: /keys/ });
    const taken = await via("v2").ok("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: keys.slice(0, 1000) });
    expect(taken.migrated).toHaveLength(1000);
    expect(await apiKeys(harness, apiId)).toHaveLength(1000);
  });

  it("refuses an empty list, and unknown fields on v2", async () => {
    const apiId = await harness.seed.api({ name: "empty" });
    await via("v2").fails("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: [] }, "invalid", { detail: /keys/ });
    await via("v2").fails("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: [{ hash: foreignKey().base64, color: "red" }] }, "invalid", { detail: /color/ });
  });
});
