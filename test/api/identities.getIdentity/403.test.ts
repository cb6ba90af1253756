import { describe, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.getIdentity"];

describe("identities.getIdentity", () => {
  const harness = useKeyward();
  const create = async (externalId: string) =>
    (await harness.rest.v2("identities.createIdentity", { externalId }, harness.keyward.rootKey)).body.data.identityId as string;

  forbiddenMatrix(harness, "identities.getIdentity", {
    validInput: async () => {
      await create("forbidden_get");
      return { externalId: "forbidden_get" };
    },
    badInputs: { rest: ["{not json", "[]", { identity: 5 }, { identity: "" }], rpc: [{ identity: "" }, {}] },
  });

  it("a root key holding only identity.<A>.read_identity reads A and gets 403 for B, naming both grants", async () => {
    const a = await create("reader_a");
    const b = await create("reader_b");
    const { key } = await harness.seed.rootKey([`identity.${a}.read_identity`]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "identities.getIdentity", input: { externalId: "reader_b" }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: identity.*.read_identity or identity.${b}.read_identity`,
      });
    }
  });
});
