import { describe } from "vitest";
import { overrideForbiddenMatrix } from "../../support/override-matrices.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.deleteOverride", () => {
  const harness = useKeyward();
  overrideForbiddenMatrix(harness, "ratelimit.deleteOverride");
});
