import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { seedPermission } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.deletePermission", () => {
  const harness = useKeyward();
  authMatrix(harness, "permissions.deletePermission", {
    validInput: async (h) => ({ permission: await seedPermission(h) }),
    unchanged: async (h, input) => expect(await h.keyward.documents.permissions.get(h.keyward.workspaceId, input.permission as string)).toBeDefined(),
    badInputs: { rest: ["{not json", { permission: "" }], rpc: [{ permission: "" }] },
  });
});
