import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.createRootKey", () => {
  const harness = useKeyward();
  authMatrix(harness, "rootKeys.createRootKey", {
    validInput: async () => ({ permissions: ["api.*.read_api"] }),
    badInputs: {
      rest: ["{not json", "[]", { permissions: [] }, { permissions: ["not.a.permission"] }, { permissions: "api.*.read_api" }],
      rpc: [{ permissions: [] }, { permissions: ["not.a.permission"] }],
    },
  });
});
