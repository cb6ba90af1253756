import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyForbiddenCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.updateCredits", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.updateCredits", {
    validInput: async (h) => ({
      keyId: (await h.seed.key(await h.seed.api({ name: "forbidden" }), { credits: { remaining: 5 } })).keyId, operation: "set", value: 9,
    }),
    badInputs: { rest: ["{not json", { keyId: "", operation: "add" }], rpc: [{ keyId: "", operation: "add" }] },
  });
  keyForbiddenCases(harness, "keys.updateCredits", {
    action: "update_key", keyFields: { credits: { remaining: 5 } },
    input: (t, via) => (via === "v1" ? { keyId: t.keyId, op: "set", value: 100 } : { keyId: t.keyId, operation: "set", value: 100 }),
  });
});
