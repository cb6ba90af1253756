import { describe } from "vitest";
import { keyNotFoundCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.whoami", () => {
  const harness = useKeyward();
  keyNotFoundCases(harness, "keys.whoami", { action: "read_key", input: (t) => ({ key: t.key }) });
});
