import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.getIdentity", () => {
  const harness = useKeyward();
  authMatrix(harness, "identities.getIdentity", {
    validInput: async (h) => {
      await h.rest.v2("identities.createIdentity", { externalId: "auth_get" }, h.keyward.rootKey);
      return { externalId: "auth_get" };
    },
    badInputs: { rest: ["{not json", "null", { identity: 5 }, { identity: "" }], rpc: [{ identity: "" }, { identity: "a b" }] },
  });
});
