import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.createRootKey", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "rootKeys.createRootKey", {
    validInput: async () => ({ permissions: ["api.*.read_api"] }),
    field: "name",
  });
});
