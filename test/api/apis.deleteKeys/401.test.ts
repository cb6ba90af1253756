import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.deleteKeys", () => {
  const harness = useKeyward();
  authMatrix(harness, "apis.deleteKeys", {
    validInput: async (h) => {
      const apiId = await h.seed.api();
      await h.seed.key(apiId);
      return { apiId };
    },
    badInputs: {
      rest: ["{not json", "\"x\"", { apiId: 12345678 }, { apiId: "short" }],
      rpc: [{ apiId: "short" }, {}],
    },
    unchanged: async (h, input) => {
      // the refused calls deleted none of the api's keys
      expect(await apiKeys(h, input.apiId as string)).toHaveLength(1);
    },
  });
});
