import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.createApi", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "apis.createApi", {
    validInput: async () => ({ name: "big-api" }),
    field: "name",
  });
});
