import { describe, expect, it } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("v1 migrations.createKeys", () => {
  const harness = useKeyward();
  const createKeys = (body: unknown) => harness.rest.v1Post("migrations.createKeys", body, harness.keyward.rootKey);

  const cases: [string, (apiId: string) => unknown, RegExp][] = [
    ["more than 100 keys (Unkey v1's limit)", (apiId) => Array.from({ length: 101 }, () => ({ apiId, hash: { value: foreignKey().base64, variant: "sha256_base64" } })), /At most 100 keys per request; this one has 101/],
    ["a body that is not an array", (apiId) => ({ apiId, keys: [] }), /must be an array/],
    ["a hash that is not a digest", (apiId) => [{ apiId, hash: { value: "abc", variant: "sha256_base64" } }], /keys\[0\]\.hash must be 44/],
    ["an unknown variant", (apiId) => [{ apiId, hash: { value: foreignKey().base64, variant: "md5" } }], /keys\[0\]\.hashVariant/],
    ["neither hash nor plaintext", (apiId) => [{ apiId, name: "nothing" }], /keys\[0\]\.hash is required unless plaintext/],
    ["a refill without remaining", (apiId) => [{ apiId, plaintext: "sk_abc", refill: { interval: "daily", amount: 5 } }], /A refill needs a credit balance/],
  ];
  for (const [what, body, message] of cases) {
    it(`refuses ${what} with 400 BAD_REQUEST and imports nothing`, async () => {
      const apiId = await harness.seed.api({ name: what });
      await expectKeysUnchanged(harness, { apiIds: [apiId] }, async () => {
        const response = await createKeys(body(apiId));
        expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code: "BAD_REQUEST" });
        expect(response.body.error.message).toMatch(message);
      });
    });
  }

  it("takes exactly 100 keys", async () => {
    const apiId = await harness.seed.api({ name: "hundred" });
    const response = await createKeys(Array.from({ length: 100 }, () => ({ apiId, hash: { value: foreignKey().base64, variant: "sha256_base64" } })));
    expect(response.body.keyIds).toHaveLength(100);
    expect(await apiKeys(harness, apiId)).toHaveLength(100);
  });
});
