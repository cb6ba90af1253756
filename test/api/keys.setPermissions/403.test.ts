import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { keyAssignmentCreateForbiddenCases } from "../../support/key-assignment-cases.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.setPermissions", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.setPermissions", {
    validInput: async (h) => ({ keyId: (await seedKey(h)).keyId, permissions: ["p.x"] }),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
  keyAssignmentCreateForbiddenCases(harness, "keys.setPermissions", "rbac.*.add_permission_to_key");
});
