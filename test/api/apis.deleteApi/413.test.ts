import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.deleteApi", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "apis.deleteApi", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    field: "apiId",
  });
});
