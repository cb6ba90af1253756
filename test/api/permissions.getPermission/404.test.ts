import { describe, it } from "vitest";
import type { Via } from "../../support/operations.js";
import { uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS } from "../../support/vias.js";

describe("permissions.getPermission", () => {
  const harness = useKeyward();
  const input = (via: Via, ref: string) => (via === "v1" ? { permissionId: ref } : { permission: ref });

  it("an unknown id or slug, and another workspace's permission, answer 404 on every transport", async () => {
    const other = await harness.seed.workspace(uniqueName("ws"));
    const slug = uniqueName("theirs");
    const theirs = (await harness.rest.v2("permissions.createPermission", { slug, name: slug }, other.rootKey.key)).body.data.permissionId;
    for (const via of ALL_VIAS) {
      for (const ref of ["perm_1111111111111111111111", theirs, ...(via === "v1" ? [] : [slug, "never.created"])]) {
        await expectRefusal(harness, {
          via, op: "permissions.getPermission", input: input(via, ref), authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: ref,
        });
      }
    }
  });
});
