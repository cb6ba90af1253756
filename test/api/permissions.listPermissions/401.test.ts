import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.listPermissions", () => {
  const harness = useKeyward();
  authMatrix(harness, "permissions.listPermissions", {
    validInput: async () => ({ limit: 10 }),
    badInputs: { rest: [{ limit: 0 }], rpc: [{ limit: 0 }] },
  });
});
