import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { uniqueName } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("permissions.createPermission", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number] | "v1") => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("v2, Connect, gRPC and gRPC-Web create a permission that getPermission returns by id and by slug", async () => {
    for (const name of V2_AND_RPC) {
      const slug = uniqueName(`docs.read.${name}`);
      const { permissionId } = dataOf("permissions.createPermission", await via(name).call("permissions.createPermission", {
        slug, name: `Read docs ${name}`, description: "reads documents",
      }));
      expect(permissionId).toMatch(/^perm_[1-9A-HJ-NP-Za-km-z]+$/);
      const want = { id: permissionId, slug, name: `Read docs ${name}`, description: "reads documents" };
      for (const ref of [permissionId, slug]) {
        expect(dataOf("permissions.getPermission", await via(name).call("permissions.getPermission", { permission: ref }))).toEqual(want);
      }
      const stored = await harness.keyward.documents.permissions.get(harness.keyward.workspaceId, permissionId);
      expect(stored).toEqual({ ...want, workspaceId: harness.keyward.workspaceId, createdAt: harness.clock.now() });
    }
  });

  it("v1 takes {name, description}; the name is the slug keys carry, and v1 getPermission answers the bare record", async () => {
    const name = uniqueName("dns.record.create");
    const response = await harness.rest.v1Post("permissions.createPermission", { name, description: "creates records" }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["permissionId"]);
    const got = await harness.rest.v1Get("permissions.getPermission", { permissionId: response.body.permissionId }, harness.keyward.rootKey);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ id: response.body.permissionId, name, slug: name, description: "creates records" });
  });

  it("takes slugs of 128 characters on v2 and v1 names of 128 characters (F3)", async () => {
    const v2 = await harness.rest.v2("permissions.createPermission", { name: "p", slug: "a".repeat(128) }, harness.keyward.rootKey);
    expect(v2.status).toBe(200);
    const v1 = await harness.rest.v1Post("permissions.createPermission", { name: "b".repeat(128) }, harness.keyward.rootKey);
    expect(v1.status).toBe(200);
    const got = await harness.rest.v2("permissions.getPermission", { permission: v1.body.permissionId }, harness.keyward.rootKey);
    expect(got.body.data.slug).toBe("b".repeat(128));
  });

  it("a permission without a description has none in any answer", async () => {
    const slug = uniqueName("bare");
    const { permissionId } = await via("v2").ok("permissions.createPermission", { slug, name: slug });
    expect(await via("v2").ok("permissions.getPermission", { permission: permissionId })).toEqual({ id: permissionId, name: slug, slug });
  });
});
