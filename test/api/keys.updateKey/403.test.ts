import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyForbiddenCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.updateKey", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.updateKey", {
    validInput: async (h) => ({ keyId: (await h.seed.key(await h.seed.api({ name: "forbidden" }))).keyId, name: "changed" }),
    badInputs: { rest: ["{not json", { keyId: "" }, { keyId: "key_1234", name: 5 }], rpc: [{ keyId: "" }] },
  });
  keyForbiddenCases(harness, "keys.updateKey", {
    action: "update_key", keyFields: { credits: { remaining: 5 } },
    input: (t) => ({ keyId: t.keyId, name: "changed", enabled: false, credits: { remaining: 100 } }),
  });
});
