import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.updateApi", () => {
  const harness = useKeyward();
  authMatrix(harness, "apis.updateApi", {
    validInput: async (h) => ({ apiId: await h.seed.api({ name: "unauthenticated" }), name: "renamed", ipWhitelist: ["10.0.0.1"] }),
    badInputs: {
      rest: ["{not json", "null", { apiId: "x" }, { apiId: "api_1111111111111111111111", ipWhitelist: ["nope"] }],
      rpc: [{ apiId: "x" }, { apiId: "api_1111111111111111111111", defaultBytes: 15 }],
    },
    unchanged: async (h, input) => {
      const api = await h.keyward.documents.apis.get(h.keyward.workspaceId, input.apiId as string);
      expect({ name: api?.name, ipWhitelist: api?.ipWhitelist }).toEqual({ name: "unauthenticated", ipWhitelist: undefined });
    },
  });
});
