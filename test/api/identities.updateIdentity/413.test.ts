import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.updateIdentity", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "identities.updateIdentity", {
    validInput: async (h) => {
      await h.rest.v2("identities.createIdentity", { externalId: "too_large_upd" }, h.keyward.rootKey);
      return { identity: "too_large_upd", meta: { a: 1 } };
    },
    field: "identity",
  });
});
