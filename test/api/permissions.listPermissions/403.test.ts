import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.listPermissions", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "permissions.listPermissions", {
    validInput: async () => ({ limit: 10 }),
    badInputs: { rest: [{ limit: 0 }], rpc: [{ limit: 0 }] },
  });
});
