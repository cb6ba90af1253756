import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyForbiddenCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.deleteKey", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.deleteKey", {
    validInput: async (h) => ({ keyId: (await h.seed.key(await h.seed.api({ name: "forbidden" }))).keyId }),
    badInputs: { rest: ["{not json", { keyId: "" }, { keyId: "key_1234", permanent: "yes" }], rpc: [{ keyId: "" }] },
  });
  keyForbiddenCases(harness, "keys.deleteKey", { action: "delete_key", input: (t) => ({ keyId: t.keyId, permanent: true }) });
});
