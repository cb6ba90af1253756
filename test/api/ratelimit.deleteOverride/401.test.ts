import { describe } from "vitest";
import { overrideAuthMatrix } from "../../support/override-matrices.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.deleteOverride", () => {
  const harness = useKeyward();
  overrideAuthMatrix(harness, "ratelimit.deleteOverride");
});
