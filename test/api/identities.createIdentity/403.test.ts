import { describe, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["identities.createIdentity"];

describe("identities.createIdentity", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "identities.createIdentity", {
    validInput: async () => ({ externalId: "forbidden_identity" }),
    badInputs: { rest: ["{not json", "[]", { externalId: 5 }, { externalId: "", extra: true }], rpc: [{ externalId: "" }, {}] },
  });

  it("create_identity granted on one identity id does not allow creating identities: 403 naming identity.*.create_identity", async () => {
    const { identityId } = (await harness.rest.v2("identities.createIdentity", { externalId: "existing" }, harness.keyward.rootKey)).body.data;
    const { key } = await harness.seed.rootKey([`identity.${identityId}.create_identity`, "identity.*.read_identity", "api.*.create_key"]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "identities.createIdentity", input: { externalId: "not_created" }, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: identity.*.create_identity",
      });
    }
  });
});
