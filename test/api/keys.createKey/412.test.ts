import { describe, expect, it } from "vitest";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { viasOf, OPERATIONS } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { expectPreconditionFailed, viaClient } from "../../support/vias.js";

describe("keys.createKey", () => {
  const harness = useKeyward();

  it("answers 412 to recoverable keys when no KEYWARD_ENCRYPTION_KEY is configured, on every transport, creating nothing", async () => {
    const apiId = await harness.seed.api({ name: "no-encryption" });
    for (const via of viasOf(OPERATIONS["keys.createKey"])) {
      await expectKeysUnchanged(harness, { apiIds: [apiId] }, async () => {
        const outcome = await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey)
          .call("keys.createKey", { apiId, recoverable: true, externalId: "never_created" });
        expectPreconditionFailed(outcome, { v1Code: "PRECONDITION_FAILED", detail: "Recoverable keys need KEYWARD_ENCRYPTION_KEY" });
      });
    }
    expect(await apiKeys(harness, apiId)).toEqual([]);
    expect(await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, "never_created")).toBeUndefined();
  });

  it("recoverable: false is served without an encryption key", async () => {
    const apiId = await harness.seed.api({ name: "plain" });
    const { keyId } = await harness.seed.key(apiId, { recoverable: false });
    expect((await apiKeys(harness, apiId)).map((k) => [k.id, k.encrypted])).toEqual([[keyId, undefined]]);
  });
});
