import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { seedPermission, uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("permissions.createRole", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("creates a role with its permissions by slug or id, creating missing ones; getRole returns it by id and by name", async () => {
    for (const name of V2_AND_RPC) {
      const existing = uniqueName("have");
      const existingId = await seedPermission(harness, existing);
      const missing = uniqueName("new");
      const role = uniqueName(`Billing Manager ${name}`).replace(".", "-");
      const { roleId } = dataOf("permissions.createRole", await via(name).call("permissions.createRole", {
        name: role, description: "billing", permissions: [existingId, missing, existing],
      }));
      expect(roleId).toMatch(/^role_/);
      const [created] = await harness.keyward.documents.permissions.findBySlugs(harness.keyward.workspaceId, [missing]);
      expect(created).toMatchObject({ slug: missing, name: missing });
      for (const ref of [roleId, role]) {
        expect(dataOf("permissions.getRole", await via(name).call("permissions.getRole", { role: ref }))).toEqual({
          id: roleId, name: role, description: "billing",
          permissions: [{ id: existingId, name: existing, slug: existing }, { id: created.id, name: missing, slug: missing }],
        });
      }
    }
  });

  it("takes role names of any characters up to 128 and permission slugs up to 128, as Unkey v2 (F2, F3)", async () => {
    for (const name of ["Billing/Admin", "r".repeat(128)]) {
      const response = await harness.rest.v2("permissions.createRole", { name, permissions: [uniqueName("p").padEnd(128, "p")] }, harness.keyward.rootKey);
      expect(response.status).toBe(200);
      expect((await harness.keyward.documents.roles.findByNames(harness.keyward.workspaceId, [name]))[0]?.name).toBe(name);
    }
  });

  it("v1 takes an empty description or one of 3-256 characters (F15)", async () => {
    for (const description of ["", "d".repeat(256)]) {
      const response = await harness.rest.v1Post("permissions.createRole", { name: uniqueName("v1role"), description }, harness.keyward.rootKey);
      expect(response.status).toBe(200);
    }
  });

  it("v1 creates a role from {name, description}; v1 getRole answers {id, name, description}", async () => {
    const name = uniqueName("dns.records.manager");
    const created = await harness.rest.v1Post("permissions.createRole", { name, description: "dns" }, harness.keyward.rootKey);
    expect(created.status).toBe(200);
    const got = await harness.rest.v1Get("permissions.getRole", { roleId: created.body.roleId }, harness.keyward.rootKey);
    expect(got.body).toEqual({ id: created.body.roleId, name, description: "dns" });
  });

  it("creating missing permissions needs rbac.*.create_permission: 403 naming it, and nothing is created", async () => {
    const { key } = await harness.seed.rootKey(["rbac.*.create_role"]);
    for (const name of [...V2_AND_RPC, "v1" as const]) {
      await expectRefusal(harness, {
        via: name, op: "permissions.createRole", input: { name: uniqueName("r"), permissions: ["not.there"] }, authorization: bearerOf(key),
        kind: "forbidden", detail: "rbac.*.create_permission",
      });
    }
    expect(await harness.keyward.documents.permissions.findBySlugs(harness.keyward.workspaceId, ["not.there"])).toEqual([]);
  });
});
