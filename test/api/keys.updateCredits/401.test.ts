import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { keyState } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.updateCredits", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.updateCredits", {
    validInput: async (h) => ({
      keyId: (await h.seed.key(await h.seed.api({ name: "auth" }), { credits: { remaining: 5 } })).keyId, operation: "set", value: 100,
    }),
    badInputs: {
      rest: ["{not json", "[]", { keyId: "", operation: "set" }, { keyId: "key_1234", operation: "add", value: 1 }],
      rpc: [{ keyId: "", operation: "set" }, { keyId: "key_1234", operation: "add" }],
    },
    unchanged: async (h, input) => expect((await keyState(h, input.keyId as string)).remaining).toBe(5),
  });
});
