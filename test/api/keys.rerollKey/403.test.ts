import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyForbiddenCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.rerollKey", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.rerollKey", {
    validInput: async (h) => ({ keyId: (await h.seed.key(await h.seed.api({ name: "forbidden" }))).keyId, expiration: 0 }),
    badInputs: { rest: ["{not json", { keyId: "" }, { keyId: "key_1234", expiration: -1 }], rpc: [{ keyId: "" }] },
  });
  keyForbiddenCases(harness, "keys.rerollKey", { action: "create_key", input: (t) => ({ keyId: t.keyId, expiration: 0 }) });
});
