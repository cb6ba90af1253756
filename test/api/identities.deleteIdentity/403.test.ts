import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.deleteIdentity"];

describe("identities.deleteIdentity", () => {
  const harness = useKeyward();
  const create = async (externalId: string) =>
    (await harness.rest.v2("identities.createIdentity", { externalId }, harness.keyward.rootKey)).body.data.identityId as string;

  forbiddenMatrix(harness, "identities.deleteIdentity", {
    validInput: async () => {
      const id = await create(`forbidden_del_${harness.clock.now()}`);
      harness.clock.advance(1);
      return { identityId: id, identity: id };
    },
    badInputs: { rest: ["{not json", "[]", { identity: 5 }, { identity: "" }], rpc: [{ identity: "" }, {}] },
  });

  it("delete_identity on identity A does not reach identity B: 403 naming both grants, B still there", async () => {
    const a = await create("del_a");
    const b = await create("del_b");
    const { key } = await harness.seed.rootKey([`identity.${a}.delete_identity`]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "identities.deleteIdentity", input: { identityId: b, identity: b }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: identity.*.delete_identity or identity.${b}.delete_identity`,
      });
    }
    expect(await harness.keyward.documents.identities.get(harness.keyward.workspaceId, b)).toBeDefined();
  });
});
