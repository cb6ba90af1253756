import { describe, it } from "vitest";
import type { Via } from "../../support/operations.js";
import { uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS } from "../../support/vias.js";

describe("permissions.getRole", () => {
  const harness = useKeyward();
  const input = (via: Via, ref: string) => (via === "v1" ? { roleId: ref } : { role: ref });

  it("an unknown id or name, and another workspace's role, answer 404 on every transport", async () => {
    const other = await harness.seed.workspace(uniqueName("ws"));
    const theirs = (await harness.rest.v2("permissions.createRole", { name: "theirs" }, other.rootKey.key)).body.data.roleId;
    for (const via of ALL_VIAS) {
      for (const ref of ["role_1111111111111111111111", theirs, ...(via === "v1" ? [] : ["theirs", "never created"])]) {
        await expectRefusal(harness, { via, op: "permissions.getRole", input: input(via, ref), authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: ref });
      }
    }
  });
});
