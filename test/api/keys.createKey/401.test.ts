import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.createKey", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.createKey", {
    validInput: async (h) => ({ apiId: await h.seed.api({ name: "auth" }), name: "never", externalId: "never_created" }),
    badInputs: {
      rest: ["{not json", "[]", { apiId: "x" }, { apiId: "api_12345678", byteLength: 15 }, { apiId: "api_12345678", prefix: "a-b" }],
      rpc: [{ apiId: "x" }, { apiId: "api_12345678", byteLength: 15 }],
    },
    unchanged: async (h, input) => {
      expect(await apiKeys(h, input.apiId as string)).toEqual([]);
      expect(await h.keyward.documents.identities.findByExternalId(h.keyward.workspaceId, "never_created")).toBeUndefined();
    },
  });
});
