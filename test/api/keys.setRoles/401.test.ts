import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.setRoles", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.setRoles", {
    validInput: async (h) => ({ keyId: (await seedKey(h)).keyId, roles: ["r.x"] }),
    unchanged: async (h, input) => expect((await h.keyward.documents.keys.get(h.keyward.workspaceId, input.keyId as string))?.roles).toEqual([]),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
});
