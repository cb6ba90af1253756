import { describe, expect, it } from "vitest";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.deleteIdentity"];

describe("identities.deleteIdentity", () => {
  const harness = useKeyward();

  it("answers 404 for an unknown or already deleted identity and for one of another workspace, deleting nothing", async () => {
    const { identityId } = (await harness.rest.v2("identities.createIdentity", { externalId: "home_del" }, harness.keyward.rootKey)).body.data;
    const { identityId: gone } = (await harness.rest.v2("identities.createIdentity", { externalId: "gone_del" }, harness.keyward.rootKey)).body.data;
    await harness.rest.v2("identities.deleteIdentity", { identity: gone }, harness.keyward.rootKey);
    const other = await harness.seed.workspace();
    const named = await harness.seed.rootKey([`identity.${identityId}.delete_identity`], { by: other.rootKey.key });
    const attempts: [string, string][] = [
      [harness.keyward.rootKey, "id_1111111111111111111111"], [harness.keyward.rootKey, gone],
      [other.rootKey.key, identityId], [named.key, identityId],
    ];
    for (const [key, id] of attempts) {
      for (const via of viasOf(op)) {
        await expectRefusal(harness, {
          via, op: "identities.deleteIdentity", input: via === "v1" ? { identityId: id } : { identity: id }, authorization: bearerOf(key),
          kind: "not_found", detail: id,
        });
      }
    }
    expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId)).toBeDefined();
  });
});
