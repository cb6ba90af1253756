import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.listKeys", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "apis.listKeys", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    field: "cursor",
  });
});
