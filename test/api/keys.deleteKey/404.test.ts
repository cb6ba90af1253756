import { describe } from "vitest";
import { keyNotFoundCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.deleteKey", () => {
  const harness = useKeyward();
  keyNotFoundCases(harness, "keys.deleteKey", { action: "delete_key", input: (t) => ({ keyId: t.keyId }) });
});
