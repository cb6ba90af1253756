import { describe, it } from "vitest";
import { seedRole, uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS } from "../../support/vias.js";

describe("permissions.createRole", () => {
  const harness = useKeyward();

  it("a name already taken in the workspace answers 409 on every transport, creating nothing (not even its permissions)", async () => {
    const name = uniqueName("admin");
    await seedRole(harness, name);
    for (const via of ALL_VIAS) {
      await expectRefusal(harness, {
        via, op: "permissions.createRole", input: { name, permissions: via === "v1" ? undefined : [uniqueName("p")] },
        authorization: bearerOf(harness.keyward.rootKey), kind: "conflict", detail: name,
      });
    }
  });
});
