import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { keyState } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.deleteKey", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.deleteKey", {
    validInput: async (h) => ({ keyId: (await h.seed.key(await h.seed.api({ name: "auth" }), { name: "kept" })).keyId, permanent: true }),
    badInputs: { rest: ["{not json", "[]", { keyId: "" }, { keyId: "key_1234", permanent: 1 }], rpc: [{ keyId: "" }, { keyId: "key-1234" }] },
    unchanged: async (h, input) => {
      expect((await keyState(h, input.keyId as string)).record).toMatchObject({ id: input.keyId, name: "kept" });
    },
  });
});
