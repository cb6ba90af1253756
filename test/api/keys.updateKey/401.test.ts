import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { keyState } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.updateKey", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.updateKey", {
    validInput: async (h) => {
      const { keyId } = await h.seed.key(await h.seed.api({ name: "auth" }), { name: "original", credits: { remaining: 3 } });
      return { keyId, name: "changed", enabled: false };
    },
    badInputs: {
      rest: ["{not json", "[]", { keyId: "" }, { keyId: "key_1234", name: 5 }, { keyId: "key_1234", expires: -1 }],
      rpc: [{ keyId: "" }, { keyId: "key_1234", expires: "-1" }],
    },
    unchanged: async (h, input) => {
      expect(await keyState(h, input.keyId as string)).toMatchObject({ record: { name: "original", enabled: true }, remaining: 3 });
    },
  });
});
