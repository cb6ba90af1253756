import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.listRootKeys", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "rootKeys.listRootKeys", {
    validInput: async () => ({ limit: 5 }),
    field: "cursor",
  });
});
