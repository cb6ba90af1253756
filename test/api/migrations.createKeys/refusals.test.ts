import { describe, expect, it } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("v1 migrations.createKeys", () => {
  const harness = useKeyward();
  const createKeys = (body: unknown) => harness.rest.v1Post("migrations.createKeys", body, harness.keyward.rootKey);

  it("answers 403 naming api.*.create_key without it, 404 for another workspace's api, 401 without a root key; nothing is imported", async () => {
    const apiId = await harness.seed.api({ name: "refusals" });
    const other = await harness.seed.workspace("v1-other");
    const theirs = await harness.seed.api({ name: "theirs", by: other.rootKey.key });
    const { key: readOnly } = await harness.seed.rootKey(["api.*.read_key"]);
    const body = (id: string) => [{ apiId: id, hash: { value: foreignKey().base64, variant: "sha256_base64" } }];
    await expectKeysUnchanged(harness, { apiIds: [apiId] }, async () => {
      const forbidden = await harness.rest.v1Post("migrations.createKeys", body(apiId), readOnly);
      expect({ status: forbidden.status, code: forbidden.body.error.code }).toEqual({ status: 403, code: "INSUFFICIENT_PERMISSIONS" });
      expect(forbidden.body.error.message).toBe("Missing permission: api.*.create_key");
      const notFound = await createKeys(body(theirs));
      expect({ status: notFound.status, code: notFound.body.error.code }).toEqual({ status: 404, code: "NOT_FOUND" });
      const unauthenticated = await harness.rest.v1Post("migrations.createKeys", body(apiId));
      expect({ status: unauthenticated.status, code: unauthenticated.body.error.code }).toEqual({ status: 401, code: "UNAUTHORIZED" });
    });
    expect(await apiKeys(harness, theirs, other.workspaceId)).toEqual([]);
  });
});
