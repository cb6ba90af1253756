import { describe, expect, it } from "vitest";
import { expectFailure } from "../../support/expect-outcome.js";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.legacy (POST /v1/keys)", () => {
  const harness = useKeyward();
  const refused = async (apiId: string, body: unknown, detail: string) => {
    await expectKeysUnchanged(harness, { apiIds: [apiId] }, async () => {
      const rest = await harness.rest.v1Post("keys", body, harness.keyward.rootKey);
      expectFailure({ via: "v1", rest }, "invalid", { detail });
    });
  };

  it("answers 400 to a prefix longer than 8 characters, which /v1/keys.createKey still accepts", async () => {
    const apiId = await harness.seed.api({ name: "legacy-prefix" });
    await refused(apiId, { apiId, prefix: "prefix_9c" }, "at most 8 characters");
    const modern = await harness.rest.v1Post("keys.createKey", { apiId, prefix: "prefix_9c" }, harness.keyward.rootKey);
    expect(modern.status).toBe(200);
    expect(modern.body.key.startsWith("prefix_9c_")).toBe(true);
    expect(await apiKeys(harness, apiId)).toHaveLength(1);
  });

  it("answers 400 to the field rules of createKey: malformed JSON, byteLength 15, a prefix with a dash, a short window", async () => {
    const apiId = await harness.seed.api({ name: "legacy-rules" });
    await refused(apiId, "{not json", "not valid JSON");
    await refused(apiId, { apiId, byteLength: 15 }, "byteLength");
    await refused(apiId, { apiId, prefix: "a-b" }, "pattern");
    await refused(apiId, { apiId, ratelimit: { type: "fast", limit: 1, refillRate: 1, refillInterval: 999 } }, "duration");
    await refused(apiId, { apiId, name: 42 }, "must be a string");
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });
});
