import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.deleteIdentity", () => {
  const harness = useKeyward();
  authMatrix(harness, "identities.deleteIdentity", {
    validInput: async (h) => {
      const response = await h.rest.v2("identities.createIdentity", { externalId: `auth_del_${h.clock.now()}` }, h.keyward.rootKey);
      h.clock.advance(1);
      return { identityId: response.body.data.identityId, identity: response.body.data.identityId };
    },
    badInputs: { rest: ["{not json", "null", { identity: 5 }, { identity: "" }], rpc: [{ identity: "" }, { identity: "a b" }] },
    unchanged: async (h, input) => {
      expect(await h.keyward.documents.identities.get(h.keyward.workspaceId, input.identity as string)).toBeDefined();
    },
  });
});
