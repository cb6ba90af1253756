import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("workspaces.createWorkspace", () => {
  const harness = useKeyward();
  authMatrix(harness, "workspaces.createWorkspace", {
    validInput: async () => ({ name: "new-workspace" }),
    badInputs: {
      rest: ["{not json", "[]", { name: "" }, { name: 5 }],
      rpc: [{ name: "" }, {}],
    },
  });
});
