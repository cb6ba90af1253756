import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.listRoles", () => {
  const harness = useKeyward();
  authMatrix(harness, "permissions.listRoles", {
    validInput: async () => ({}),
    badInputs: { rest: [{ limit: 0 }], rpc: [{ limit: 0 }] },
  });
});
