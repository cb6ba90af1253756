import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { seedPermission } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.deletePermission", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "permissions.deletePermission", {
    validInput: async (h) => ({ permission: await seedPermission(h) }),
    badInputs: { rest: ["{not json", { permission: "" }], rpc: [{ permission: "" }] },
  });
});
