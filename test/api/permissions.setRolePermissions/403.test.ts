import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { seedRole } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.setRolePermissions", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "permissions.setRolePermissions", {
    validInput: async (h) => ({ roleId: await seedRole(h), permissions: ["p.set"] }),
    badInputs: { rest: ["{not json", { roleId: "" }], rpc: [{ roleId: "" }] },
  });
});
