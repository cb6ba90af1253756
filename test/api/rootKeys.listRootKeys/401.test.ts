import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.listRootKeys", () => {
  const harness = useKeyward();
  authMatrix(harness, "rootKeys.listRootKeys", {
    validInput: async () => ({ limit: 10 }),
    badInputs: {
      rest: ["{not json", "null", { limit: 0 }, { limit: "5" }, { cursor: "not-a-cursor" }],
      rpc: [{ limit: 0 }, { limit: 101 }],
    },
  });
});
