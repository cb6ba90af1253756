import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("workspaces.createWorkspace", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "workspaces.createWorkspace", {
    validInput: async () => ({ name: "big-workspace" }),
    field: "name",
  });
});
