import { describe } from "vitest";
import { tooLargeMatrix } from "../../support/too-large.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.limit", () => {
  const harness = useKeyward();
  tooLargeMatrix(harness, "ratelimit.limit", {
    validInput: async () => ({ namespace: "too-large", identifier: "u", limit: 1_000, duration: 60_000 }),
    field: "identifier",
  });
});
