import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.getIdentity", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "identities.getIdentity", {
    validInput: async (h) => {
      await h.rest.v2("identities.createIdentity", { externalId: "too_large_get" }, h.keyward.rootKey);
      return { identity: "too_large_get" };
    },
    field: "identity",
  });
});
