import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.listRoles", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "permissions.listRoles", {
    validInput: async () => ({}),
    badInputs: { rest: [{ limit: 0 }], rpc: [{ limit: 0 }] },
  });
});
