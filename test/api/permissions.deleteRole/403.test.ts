import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { seedRole } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.deleteRole", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "permissions.deleteRole", {
    validInput: async (h) => ({ role: await seedRole(h) }),
    badInputs: { rest: ["{not json", { role: "" }], rpc: [{ role: "" }] },
  });
});
