import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.listKeys", () => {
  const harness = useKeyward();
  authMatrix(harness, "apis.listKeys", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    badInputs: {
      rest: ["{not json", "[]", { apiId: "" }, { apiId: "api_12345678", limit: 0 }, { apiId: "api_12345678", limit: "5" }],
      rpc: [{ apiId: "" }, { apiId: "api_12345678", limit: 101 }],
    },
  });
});
