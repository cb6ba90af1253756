import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.deleteIdentity", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "identities.deleteIdentity", {
    validInput: async (h) => {
      const created = await h.rest.v2("identities.createIdentity", { externalId: `too_large_del_${h.clock.now()}` }, h.keyward.rootKey);
      h.clock.advance(1);
      return { identity: created.body.data.identityId };
    },
    field: "identity",
  });
});
