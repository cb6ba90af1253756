import { describe } from "vitest";
import { keyNotFoundCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.updateCredits", () => {
  const harness = useKeyward();
  keyNotFoundCases(harness, "keys.updateCredits", {
    action: "update_key", keyFields: { credits: { remaining: 5 } },
    input: (t, via) => (via === "v1" ? { keyId: t.keyId, op: "increment", value: 1 } : { keyId: t.keyId, operation: "increment", value: 1 }),
  });
});
