import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.removePermissions", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.removePermissions", {
    validInput: async (h) => ({ keyId: (await seedKey(h, { permissions: ["p.y"] })).keyId, permissions: ["p.y"] }),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
});
