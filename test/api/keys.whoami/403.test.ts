import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyForbiddenCases } from "../../support/key-scope-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.whoami", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.whoami", {
    validInput: async (h) => ({ key: (await h.seed.key(await h.seed.api({ name: "forbidden" }))).key }),
    badInputs: { rest: ["{not json", { key: "" }], rpc: [{ key: "" }] },
  });
  keyForbiddenCases(harness, "keys.whoami", { action: "read_key", input: (t) => ({ key: t.key }) });
});
