import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.updateIdentity", () => {
  const harness = useKeyward();
  authMatrix(harness, "identities.updateIdentity", {
    validInput: async (h) => {
      await h.rest.v2("identities.createIdentity", { externalId: "auth_upd", meta: { v: 1 } }, h.keyward.rootKey);
      return { externalId: "auth_upd", identity: "auth_upd", meta: { v: 2 } };
    },
    badInputs: { rest: ["{not json", "null", { identity: 5 }, { identity: "" }], rpc: [{ identity: "" }, { identity: "a b" }] },
    unchanged: async (h) => {
      expect((await h.keyward.documents.identities.findByExternalId(h.keyward.workspaceId, "auth_upd"))?.meta).toEqual({ v: 1 });
    },
  });
});
