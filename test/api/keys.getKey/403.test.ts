import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyForbiddenCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.getKey", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.getKey", {
    validInput: async (h) => ({ keyId: (await h.seed.key(await h.seed.api({ name: "forbidden" }))).keyId }),
    badInputs: { rest: ["{not json", { keyId: "" }, { keyId: "key-1234" }], rpc: [{ keyId: "" }, { keyId: "key-1234" }] },
  });
  keyForbiddenCases(harness, "keys.getKey", { action: "read_key", input: (t) => ({ keyId: t.keyId }) });
});
