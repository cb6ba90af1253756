import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.deleteRootKey", () => {
  const harness = useKeyward();
  authMatrix(harness, "rootKeys.deleteRootKey", {
    validInput: async (h) => ({ keyId: (await h.seed.rootKey(["api.*.read_api"])).keyId }),
    badInputs: {
      rest: ["{not json", "[]", { keyId: "" }, { keyId: 5 }],
      rpc: [{ keyId: "" }, {}],
    },
    unchanged: async (h, input) => {
      // the root key the refused calls named is still live
      expect(await h.keyward.documents.rootKeys.get(h.keyward.workspaceId, input.keyId as string)).toMatchObject({ id: input.keyId });
    },
  });
});
