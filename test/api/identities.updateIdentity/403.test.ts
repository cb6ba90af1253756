import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.updateIdentity"];

describe("identities.updateIdentity", () => {
  const harness = useKeyward();
  const create = async (externalId: string) =>
    (await harness.rest.v2("identities.createIdentity", { externalId }, harness.keyward.rootKey)).body.data.identityId as string;

  forbiddenMatrix(harness, "identities.updateIdentity", {
    validInput: async () => {
      await create("forbidden_upd");
      return { externalId: "forbidden_upd", identity: "forbidden_upd", meta: { changed: true } };
    },
    badInputs: { rest: ["{not json", "[]", { identity: 5 }, { identity: "" }], rpc: [{ identity: "" }, {}] },
  });

  it("update_identity on identity A does not reach identity B: 403 naming both grants, B unchanged", async () => {
    const a = await create("upd_a");
    const b = await create("upd_b");
    const { key } = await harness.seed.rootKey([`identity.${a}.update_identity`]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "identities.updateIdentity", input: { externalId: "upd_b", identity: "upd_b", meta: { x: 1 } }, authorization: bearerOf(key),
        kind: "forbidden", detail: `Missing permission: identity.*.update_identity or identity.${b}.update_identity`,
      });
    }
    expect((await harness.keyward.documents.identities.get(harness.keyward.workspaceId, b))?.meta).toBeUndefined();
  });
});
