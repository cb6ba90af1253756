import { describe } from "vitest";
import { overrideNamespaceNotFound } from "../../support/override-matrices.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.setOverride", () => {
  const harness = useKeyward();
  overrideNamespaceNotFound(harness, "ratelimit.setOverride");
});
