import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyAssignmentCreateForbiddenCases } from "../../support/key-assignment-cases.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.addRoles", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.addRoles", {
    validInput: async (h) => ({ keyId: (await seedKey(h)).keyId, roles: ["r.x"] }),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
  keyAssignmentCreateForbiddenCases(harness, "keys.addRoles", "rbac.*.add_role_to_key");
});
