import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { dataOf, keyState, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.rerollKey (recoverable)", () => {
  const harness = useKeyward({ encryptionKey: randomBytes(32) });

  it("the new key of a recoverable key is recoverable too: getKey decrypt returns the new secret", async () => {
    const apiId = await harness.seed.api({ name: "vault" });
    for (const name of V2_AND_RPC) {
      const old = await harness.seed.key(apiId, { recoverable: true, prefix: "rec" });
      const client = viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
      const rolled = dataOf("keys.rerollKey", await client.call("keys.rerollKey", { keyId: old.keyId, expiration: 0 }));
      expect(rolled.key.startsWith("rec_")).toBe(true);
      expect((await keyState(harness, rolled.keyId)).record?.encrypted).toBeDefined();
      expect(dataOf("keys.getKey", await client.call("keys.getKey", { keyId: rolled.keyId, decrypt: true })).plaintext).toBe(rolled.key);
      expect(await verifyCode(harness, rolled.key)).toBe("VALID");
    }
  });

  it("rerolling a recoverable key needs api.*.encrypt_key besides create_key", async () => {
    const apiId = await harness.seed.api({ name: "no-encrypt" });
    const old = await harness.seed.key(apiId, { recoverable: true });
    const { key: roller } = await harness.seed.rootKey(["api.*.create_key"]);
    harness.writes.clear();
    for (const name of V2_AND_RPC) {
      await viaClient(harness.keyward.baseUrl, name, roller).fails("keys.rerollKey", { keyId: old.keyId, expiration: 0 }, "forbidden", {
        detail: `Missing permission: api.*.encrypt_key or api.${apiId}.encrypt_key`,
      });
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await verifyCode(harness, old.key)).toBe("VALID");
  });
});
