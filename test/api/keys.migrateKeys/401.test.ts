import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { foreignKey } from "../../support/imports.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.migrateKeys", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.migrateKeys", {
    validInput: async (h) => ({ migrationId: "sha256_base64", apiId: await h.seed.api({ name: "auth" }), keys: [{ hash: foreignKey().base64 }] }),
    badInputs: { rest: ["{not json", "[]", { migrationId: "x", keys: [] }], rpc: [{ migrationId: "x", keys: [] }] },
    unchanged: async (h, input) => expect(await apiKeys(h, input.apiId as string)).toEqual([]),
  });
});
