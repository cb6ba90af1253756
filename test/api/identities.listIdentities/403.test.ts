import { describe, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.listIdentities"];

describe("identities.listIdentities", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "identities.listIdentities", {
    validInput: async () => ({ limit: 10 }),
    badInputs: { rest: ["{not json", "[]", { limit: 0 }], rpc: [{ limit: 0 }, { limit: 101 }] },
  });

  it("read_identity on one identity does not allow listing them all: 403 naming identity.*.read_identity", async () => {
    const { identityId } = (await harness.rest.v2("identities.createIdentity", { externalId: "one" }, harness.keyward.rootKey)).body.data;
    const { key } = await harness.seed.rootKey([`identity.${identityId}.read_identity`]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "identities.listIdentities", input: {}, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: identity.*.read_identity",
      });
    }
  });
});
