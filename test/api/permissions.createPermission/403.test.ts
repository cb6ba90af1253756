import { describe } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { uniqueName } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.createPermission", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "permissions.createPermission", {
    validInput: async () => ({ slug: uniqueName("p"), name: uniqueName("n") }),
    badInputs: { rest: ["{not json", { name: "" }, { slug: "a b", name: "x" }], rpc: [{ name: "" }, { slug: "a b", name: "x" }] },
  });
});
