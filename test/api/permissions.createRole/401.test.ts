import { describe } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { uniqueName } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.createRole", () => {
  const harness = useKeyward();
  authMatrix(harness, "permissions.createRole", {
    validInput: async () => ({ name: uniqueName("role") }),
    badInputs: { rest: ["{not json", { name: "" }, { name: " lead" }], rpc: [{ name: "" }] },
  });
});
