import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.getKey", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.getKey", {
    validInput: async (h) => ({ keyId: (await h.seed.key(await h.seed.api({ name: "auth" }))).keyId }),
    badInputs: {
      rest: ["{not json", "[]", { keyId: "" }, { keyId: "key-1234" }, { keyId: "key_1234", decrypt: "yes" }],
      rpc: [{ keyId: "" }, { keyId: "key-1234" }],
    },
  });
});
