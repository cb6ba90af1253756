import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.deleteApi", () => {
  const harness = useKeyward();
  authMatrix(harness, "apis.deleteApi", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    badInputs: {
      rest: ["{not json", "\"x\"", { apiId: 12345678 }, { apiId: "short" }],
      rpc: [{ apiId: "short" }, {}],
    },
    unchanged: async (h, input) => {
      // the api the refused calls named is still there
      expect(await h.keyward.documents.apis.get(h.keyward.workspaceId, input.apiId as string)).toMatchObject({ id: input.apiId });
    },
  });
});
