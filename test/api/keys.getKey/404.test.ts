import { describe } from "vitest";
import { keyNotFoundCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.getKey", () => {
  const harness = useKeyward();
  keyNotFoundCases(harness, "keys.getKey", { action: "read_key", input: (t) => ({ keyId: t.keyId }) });
});
