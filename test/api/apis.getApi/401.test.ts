import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.getApi", () => {
  const harness = useKeyward();
  authMatrix(harness, "apis.getApi", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    badInputs: {
      rest: ["{not json", "null", { apiId: 12345678 }, { apiId: "short" }],
      rpc: [{ apiId: "short" }, { apiId: "has-hyphens-123" }],
    },
  });
});
