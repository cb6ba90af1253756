import { describe, expect, it } from "vitest";
import { seedPermission, uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS } from "../../support/vias.js";

describe("permissions.createPermission", () => {
  const harness = useKeyward();

  it("a slug or a name already taken in the workspace answers 409 on every transport, and nothing is written", async () => {
    const slug = uniqueName("taken");
    await seedPermission(harness, slug);
    for (const via of ALL_VIAS) {
      const input = via === "v1" ? { name: slug } : { slug, name: uniqueName("other") };
      await expectRefusal(harness, { via, op: "permissions.createPermission", input, authorization: bearerOf(harness.keyward.rootKey), kind: "conflict", detail: "already exists" });
      if (via !== "v1") {
        await expectRefusal(harness, {
          via, op: "permissions.createPermission", input: { slug: uniqueName("fresh"), name: slug },
          authorization: bearerOf(harness.keyward.rootKey), kind: "conflict", detail: `name "${slug}"`,
        });
      }
    }
  });

  it("another workspace may use the same slug", async () => {
    const slug = uniqueName("shared");
    await seedPermission(harness, slug);
    const other = await harness.seed.workspace(uniqueName("ws"));
    const response = await harness.rest.v2("permissions.createPermission", { slug, name: slug }, other.rootKey.key);
    expect(response.status).toBe(200);
  });
});
