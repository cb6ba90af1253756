import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.rerollKey", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.rerollKey", {
    validInput: async (h) => ({ keyId: (await h.seed.key(await h.seed.api({ name: "auth" }))).keyId, expiration: 0 }),
    badInputs: { rest: ["{not json", "[]", { keyId: "" }, { keyId: "key_1234", expiration: -1 }], rpc: [{ keyId: "" }] },
    unchanged: async (h, input) => {
      const key = await h.keyward.documents.keys.get(h.keyward.workspaceId, input.keyId as string);
      expect(key?.expires).toBeUndefined();
      expect(await apiKeys(h, key?.apiId as string)).toHaveLength(1);
    },
  });
});
