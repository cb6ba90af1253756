import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.removeRoles", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.removeRoles", {
    validInput: async (h) => ({ keyId: (await seedKey(h, { roles: ["r.y"] })).keyId, roles: ["r.y"] }),
    unchanged: async (h, input) => expect((await h.keyward.documents.keys.get(h.keyward.workspaceId, input.keyId as string))?.roles).toEqual(["r.y"]),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
});
