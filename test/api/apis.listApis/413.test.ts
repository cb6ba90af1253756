import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.listApis", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "apis.listApis", {
    validInput: async () => ({ limit: 5 }),
    field: "search",
  });
});
