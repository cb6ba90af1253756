import { describe } from "vitest";
import { keyNotFoundCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.rerollKey", () => {
  const harness = useKeyward();
  keyNotFoundCases(harness, "keys.rerollKey", { action: "create_key", input: (t) => ({ keyId: t.keyId, expiration: 0 }) });
});
