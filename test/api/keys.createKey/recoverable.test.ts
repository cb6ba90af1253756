import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiKeys, dataOf, expectKeysUnchanged, keyState } from "../../support/key-state.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, expectPreconditionFailed, viaClient } from "../../support/vias.js";

// Recoverable keys need KEYWARD_ENCRYPTION_KEY: this file's server has one.
describe("keys.createKey (recoverable)", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32) });
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("stores a recoverable key encrypted, never in plaintext, and getKey decrypt returns it on every transport", async () => {
    const apiId = await harness.seed.api({ name: "vault" });
    for (const creator of ALL_VIAS) {
      const { keyId, key } = dataOf("keys.createKey", await via(creator).call("keys.createKey", { apiId, prefix: "rk", recoverable: true }));
      const { record } = await keyState(harness, keyId);
      expect(record?.encrypted).toEqual({ iv: expect.any(String), ciphertext: expect.any(String), tag: expect.any(String) });
      expect(JSON.stringify(record)).not.toContain(key.slice(3));
      for (const reader of ALL_VIAS) {
        const got = dataOf("keys.getKey", await via(reader).call("keys.getKey", { keyId, decrypt: true }));
        expect({ reader, plaintext: got.plaintext }).toEqual({ reader, plaintext: key });
      }
    }
  });

  it("the plaintext appears nowhere without decrypt: getKey, whoami and listKeys on every transport", async () => {
    const apiId = await harness.seed.api({ name: "quiet" });
    const { keyId, key } = await harness.seed.key(apiId, { recoverable: true });
    for (const name of ALL_VIAS) {
      for (const input of [{ keyId }, { keyId, decrypt: false }]) {
        const got = dataOf("keys.getKey", await via(name).call("keys.getKey", input));
        expect(got.keyId ?? got.id).toBe(keyId);
        expect(JSON.stringify(got)).not.toContain(key);
      }
      const listed = dataOf("apis.listKeys", await via(name).call("apis.listKeys", { apiId }));
      expect(JSON.stringify(listed)).toContain(keyId);
      expect(JSON.stringify(listed)).not.toContain(key);
      const who = dataOf("keys.whoami", await via(name).call("keys.whoami", { key }));
      expect(who.id ?? who.keyId).toBe(keyId);
      expect(JSON.stringify(who)).not.toContain(key);
    }
  });

  it("listKeys decrypt shows the plaintext of recoverable keys only", async () => {
    const apiId = await harness.seed.api({ name: "mixed" });
    const recoverable = await harness.seed.key(apiId, { recoverable: true, name: "r" });
    const plain = await harness.seed.key(apiId, { name: "p" });
    const v2 = dataOf("apis.listKeys", await via("v2").call("apis.listKeys", { apiId, decrypt: true }));
    expect(Object.fromEntries(v2.map((k: { name: string; plaintext?: string }) => [k.name, k.plaintext]))).toEqual({ r: recoverable.key, p: undefined });
    const v1 = dataOf("apis.listKeys", await via("v1").call("apis.listKeys", { apiId, decrypt: true }));
    expect(Object.fromEntries(v1.keys.map((k: { name: string; plaintext?: string }) => [k.name, k.plaintext]))).toEqual({ r: recoverable.key, p: undefined });
    expect(JSON.stringify([v1, v2])).not.toContain(plain.key);
  });

  it("getKey decrypt never returns a plaintext for a key created without recoverable", async () => {
    const apiId = await harness.seed.api({ name: "not-recoverable" });
    const { keyId, key } = await harness.seed.key(apiId);
    expect((await keyState(harness, keyId)).record?.encrypted).toBeUndefined();
    for (const name of ALL_VIAS) {
      const got = dataOf("keys.getKey", await via(name).call("keys.getKey", { keyId, decrypt: true }));
      expect(got.keyId ?? got.id).toBe(keyId);
      expect(got.plaintext).toBeUndefined();
      expect(JSON.stringify(got)).not.toContain(key);
    }
  });

  it("decrypt without api.*.decrypt_key answers 403 naming it, on getKey and listKeys, on every transport", async () => {
    const apiId = await harness.seed.api({ name: "no-decrypt" });
    const { keyId } = await harness.seed.key(apiId, { recoverable: true });
    const { key: reader } = await harness.seed.rootKey(["api.*.read_key", "api.*.read_api"]);
    const detail = `Missing permission: api.*.decrypt_key or api.${apiId}.decrypt_key`;
    for (const via of viasOf(OPERATIONS["keys.getKey"])) {
      await expectRefusal(harness, { via, op: "keys.getKey", input: { keyId, decrypt: true }, authorization: bearerOf(reader), kind: "forbidden", detail });
      await expectRefusal(harness, { via, op: "apis.listKeys", input: { apiId, decrypt: true }, authorization: bearerOf(reader), kind: "forbidden", detail });
      // The same key reads fine without decrypt.
      expect(dataOf("keys.getKey", await viaClient(harness.keyward.baseUrl, via, reader).call("keys.getKey", { keyId })).plaintext).toBeUndefined();
    }
    const { key: scoped } = await harness.seed.rootKey(["api.*.read_key", `api.${apiId}.decrypt_key`]);
    expect(dataOf("keys.getKey", await via("v2", scoped).call("keys.getKey", { keyId, decrypt: true })).plaintext).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it("creating a recoverable key without api.*.encrypt_key answers 403 naming it and creates nothing", async () => {
    const apiId = await harness.seed.api({ name: "no-encrypt" });
    const { key: creator } = await harness.seed.rootKey(["api.*.create_key"]);
    for (const via of viasOf(OPERATIONS["keys.createKey"])) {
      await expectKeysUnchanged(harness, { apiIds: [apiId] }, () =>
        expectRefusal(harness, {
          via, op: "keys.createKey", input: { apiId, recoverable: true }, authorization: bearerOf(creator), kind: "forbidden",
          detail: `Missing permission: api.*.encrypt_key or api.${apiId}.encrypt_key`,
        }));
    }
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });

  it("answers 412 for an api created with storeEncryptedKeys: false, creating nothing", async () => {
    const created = await harness.rest.v2("apis.createApi", { name: "plain-api", storeEncryptedKeys: false }, harness.keyward.rootKey);
    const apiId = created.body.data.apiId;
    for (const name of viasOf(OPERATIONS["keys.createKey"])) {
      await expectKeysUnchanged(harness, { apiIds: [apiId] }, async () => {
        expectPreconditionFailed(await via(name).call("keys.createKey", { apiId, recoverable: true }), {
          v1Code: "PRECONDITION_FAILED", detail: `The api ${apiId} does not store encrypted keys.`,
        });
      });
    }
  });
});
