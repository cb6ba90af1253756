import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("v1 migrations.createKeys", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32) });
  const createKeys = (body: unknown, rootKey = harness.keyward.rootKey) => harness.rest.v1Post("migrations.createKeys", body, rootKey);
  const verify = async (key: string) => (await harness.rest.v1Post("keys.verifyKey", { key })).body;

  it("answers {keyIds} in request order for hashed and plaintext keys, each of its own api, each verifying on v1 and v2", async () => {
    const [first, second] = [await harness.seed.api({ name: "v1-first" }), await harness.seed.api({ name: "v1-second" })];
    const [hashed, hex, plain] = [foreignKey("v1"), foreignKey("v1"), foreignKey("v1live")];
    const response = await createKeys([
      { apiId: first, hash: { value: hashed.base64, variant: "sha256_base64" }, start: "v1_ab12", name: "hashed", ownerId: "owner-1",
        meta: { tier: 1 }, remaining: 10, refill: { interval: "monthly", amount: 10 }, environment: "test" },
      { apiId: first, hash: { value: hex.hex, variant: "sha256_hex" }, ratelimit: { type: "fast", limit: 1, refillRate: 1, refillInterval: 60_000 } },
      { apiId: second, plaintext: plain.plaintext, prefix: "v1live", roles: ["v1-role"], permissions: ["v1.read"], expires: harness.clock.now() + 60_000 },
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ keyIds: [expect.stringMatching(/^key_/), expect.stringMatching(/^key_/), expect.stringMatching(/^key_/)] });
    const [hashedId, hexId, plainId] = response.body.keyIds;
    expect(await verify(hashed.plaintext)).toMatchObject({ valid: true, keyId: hashedId, name: "hashed", ownerId: "owner-1", meta: { tier: 1 }, remaining: 9, environment: "test" });
    expect((await verify(hex.plaintext)).code).toBe("VALID");
    expect((await verify(hex.plaintext)).code).toBe("RATE_LIMITED");
    expect(await verify(plain.plaintext)).toMatchObject({ valid: true, keyId: plainId, permissions: ["v1.read"], roles: ["v1-role"] });
    const getKey = async (keyId: string, decrypt = false) => (await harness.rest.v1Get("keys.getKey", { keyId, decrypt }, harness.keyward.rootKey)).body;
    expect(await getKey(hashedId)).toMatchObject({ apiId: first, start: "v1_ab12", refill: { interval: "monthly", amount: 10, refillDay: 1 } });
    expect(await getKey(hexId)).toMatchObject({ apiId: first, start: "", ratelimit: { limit: 1, duration: 60_000 } });
    // A plaintext key: start derived from it, and (the api stores recoverable keys) readable again with decrypt.
    expect(await getKey(plainId, true)).toMatchObject({ apiId: second, start: plain.plaintext.slice(0, "v1live_".length + 4), plaintext: plain.plaintext });
    const stored = await apiKeys(harness, second);
    expect(stored.map((k) => k.hash)).toEqual([plain.base64]);
    expect(JSON.stringify(stored)).not.toContain(plain.plaintext);
  });

  it("an import with a taken or repeated hash is 409 CONFLICT and imports nothing (all or nothing, as Unkey v1's transaction)", async () => {
    const apiId = await harness.seed.api({ name: "v1-conflict" });
    const existing = foreignKey();
    expect((await createKeys([{ apiId, hash: { value: existing.base64, variant: "sha256_base64" } }])).status).toBe(200);
    const fresh = foreignKey();
    for (const body of [
      [{ apiId, hash: { value: fresh.base64, variant: "sha256_base64" } }, { apiId, hash: { value: existing.hex, variant: "sha256_hex" } }],
      [{ apiId, plaintext: fresh.plaintext }, { apiId, hash: { value: fresh.base64, variant: "sha256_base64" } }],
    ]) {
      harness.writes.clear();
      const response = await createKeys(body);
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/^keys\[1\]: (a key with this hash already exists|repeats the hash of keys\[0\]); no key was imported\.$/) });
      expect(harness.writes.writes).toEqual([]);
    }
    expect(await apiKeys(harness, apiId)).toHaveLength(1);
  });
});
