import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { seedRole } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.getRole", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "permissions.getRole", {
    validInput: async (h) => ({ role: await seedRole(h) }),
    badInputs: { rest: [{ role: "" }], rpc: [{ role: "" }] },
  });
});
