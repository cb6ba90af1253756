import { describe, it } from "vitest";
import { allPermissions } from "../../../src/domain/permissions.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["workspaces.createWorkspace"];

describe("workspaces.createWorkspace", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "workspaces.createWorkspace", {
    validInput: async () => ({ name: "refused-workspace" }),
    badInputs: { rest: ["{not json", "[]", { name: "" }, { name: 5 }], rpc: [{ name: "" }, {}] },
  });

  it("a key with every permission but create_workspace, created by a workspace's first key, cannot create workspaces", async () => {
    const other = await harness.seed.workspace();
    const { key } = await harness.seed.rootKey(allPermissions().filter((p) => p !== "workspace.*.create_workspace"), {
      by: other.rootKey.key,
    });
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "workspaces.createWorkspace", input: { name: "not-created" }, authorization: bearerOf(key),
        kind: "forbidden", detail: "Missing permission: workspace.*.create_workspace",
      });
    }
  });
});
