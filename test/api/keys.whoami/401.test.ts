import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.whoami", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.whoami", {
    validInput: async (h) => ({ key: (await h.seed.key(await h.seed.api({ name: "auth" }))).key }),
    badInputs: { rest: ["{not json", "[]", { key: "" }, { key: 42 }], rpc: [{ key: "" }, { key: "k".repeat(513) }] },
  });
});
