import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { seedRole } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.deleteRole", () => {
  const harness = useKeyward();
  authMatrix(harness, "permissions.deleteRole", {
    validInput: async (h) => ({ role: await seedRole(h) }),
    unchanged: async (h, input) => expect(await h.keyward.documents.roles.get(h.keyward.workspaceId, input.role as string)).toBeDefined(),
    badInputs: { rest: ["{not json", { role: "" }], rpc: [{ role: "" }] },
  });
});
