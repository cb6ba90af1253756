import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { seedPermission } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.getPermission", () => {
  const harness = useKeyward();
  authMatrix(harness, "permissions.getPermission", {
    validInput: async (h) => ({ permission: await seedPermission(h) }),
    badInputs: { rest: [{ permission: "" }], rpc: [{ permission: "" }] },
  });
});
