import { describe, expect, it } from "vitest";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.updateIdentity"];

describe("identities.updateIdentity", () => {
  const harness = useKeyward();

  it("answers 404 for an unknown or deleted identity and for one of another workspace, changing nothing", async () => {
    const { identityId } = (await harness.rest.v2("identities.createIdentity", { externalId: "home_upd", meta: { v: 1 } }, harness.keyward.rootKey)).body.data;
    const { identityId: gone } = (await harness.rest.v2("identities.createIdentity", { externalId: "gone_upd" }, harness.keyward.rootKey)).body.data;
    await harness.rest.v2("identities.deleteIdentity", { identity: gone }, harness.keyward.rootKey);
    const other = await harness.seed.workspace();
    const named = await harness.seed.rootKey([`identity.${identityId}.update_identity`], { by: other.rootKey.key });
    const attempts: [string, string, string][] = [
      [harness.keyward.rootKey, "nobody", "nobody"], [harness.keyward.rootKey, gone, gone],
      [other.rootKey.key, identityId, identityId], [named.key, "home_upd", "home_upd"],
    ];
    for (const [key, value, detail] of attempts) {
      for (const via of viasOf(op)) {
        const input = via === "v1" ? (value.startsWith("id_") ? { identityId: value } : { externalId: value }) : { identity: value };
        await expectRefusal(harness, {
          via, op: "identities.updateIdentity", input: { ...input, meta: { v: 2 } }, authorization: bearerOf(key), kind: "not_found", detail,
        });
      }
    }
    expect((await harness.keyward.documents.identities.get(harness.keyward.workspaceId, identityId))?.meta).toEqual({ v: 1 });
  });
});
