import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.createIdentity", () => {
  const harness = useKeyward();
  authMatrix(harness, "identities.createIdentity", {
    validInput: async () => ({ externalId: "auth_matrix", ratelimits: [{ name: "rps", limit: 1, duration: 1000 }] }),
    badInputs: {
      rest: ["{not json", "[]", "", { externalId: 5, unknownField: true }, { externalId: "" }],
      rpc: [{ externalId: "" }, { externalId: "has space" }],
    },
    unchanged: async (h) => {
      expect(await h.keyward.documents.identities.findByExternalId(h.keyward.workspaceId, "auth_matrix")).toBeUndefined();
    },
  });
});
