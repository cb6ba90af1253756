import { describe } from "vitest";
import { keyNotFoundCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.updateKey", () => {
  const harness = useKeyward();
  keyNotFoundCases(harness, "keys.updateKey", {
    action: "update_key", keyFields: { credits: { remaining: 5 } },
    input: (t) => ({ keyId: t.keyId, name: "changed", externalId: "never_created", credits: { remaining: 100 } }),
  });
});
