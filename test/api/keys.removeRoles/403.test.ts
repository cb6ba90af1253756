import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.removeRoles", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.removeRoles", {
    validInput: async (h) => ({ keyId: (await seedKey(h, { roles: ["r.y"] })).keyId, roles: ["r.y"] }),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
});
