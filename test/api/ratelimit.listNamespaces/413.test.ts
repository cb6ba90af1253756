import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.listNamespaces", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "ratelimit.listNamespaces", {
    validInput: async () => ({ limit: 5 }),
    field: "search",
  });
});
