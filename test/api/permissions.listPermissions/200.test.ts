import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { uniqueName } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("permissions.listPermissions", () => {
  const harness = useKeyward();

  it("pages a workspace's permissions by id (v2 and RPC) and v1 lists them all as a bare array; other workspaces never show", async () => {
    const ws = await harness.seed.workspace(uniqueName("ws"));
    const root = ws.rootKey.key;
    const ids: string[] = [];
    for (const slug of ["a.read", "b.read", "c.read"]) {
      harness.clock.advance(1); // ids sort by creation time, to the millisecond
      ids.push((await harness.rest.v2("permissions.createPermission", { slug, name: slug, description: `d ${slug}` }, root)).body.data.permissionId);
    }
    await harness.rest.v2("permissions.createPermission", { slug: "mine", name: "mine" }, harness.keyward.rootKey);
    const records = ["a.read", "b.read", "c.read"].map((slug, i) => ({ id: ids[i], slug, name: slug, description: `d ${slug}` }));
    for (const name of V2_AND_RPC) {
      const client = viaClient(harness.keyward.baseUrl, name, root);
      const first = await client.call("permissions.listPermissions", { limit: 2 });
      const page = name === "v2" ? first.via === "v2" && first.rest.body : dataOf("permissions.listPermissions", first);
      expect(page.data).toEqual(records.slice(0, 2));
      expect(page.pagination.hasMore).toBe(true);
      const second = dataOf("permissions.listPermissions", await client.call("permissions.listPermissions", { limit: 2, cursor: page.pagination.cursor }));
      const rest = name === "v2" ? second : second.data;
      expect(rest).toEqual(records.slice(2));
    }
    const v1 = await harness.rest.v1Get("permissions.listPermissions", {}, root);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(records);
  });

  it("search keeps the permissions whose id, name, slug or description contains the text, ignoring case, on v2 and RPC", async () => {
    const ws = await harness.seed.workspace(uniqueName("ws"));
    const root = ws.rootKey.key;
    for (const [slug, description] of [["files.read", "Reads FILES"], ["files.write", undefined], ["users.read", "reads users"]]) {
      harness.clock.advance(1);
      await harness.rest.v2("permissions.createPermission", { slug, name: slug, description }, root);
    }
    for (const name of V2_AND_RPC) {
      const client = viaClient(harness.keyward.baseUrl, name, root);
      const outcome = await client.call("permissions.listPermissions", { search: "FILE" });
      const page = outcome.via === "v2" ? outcome.rest.body : dataOf("permissions.listPermissions", outcome);
      expect(page.data.map((p: { slug: string }) => p.slug)).toEqual(["files.read", "files.write"]);
      const roles = await client.call("permissions.listRoles", { search: "nothing-matches" });
      expect((roles.via === "v2" ? roles.rest.body : dataOf("permissions.listRoles", roles)).data).toEqual([]);
    }
  });

  it("takes an empty search as no filter and a search of up to 256 characters, for permissions and roles (F19)", async () => {
    const ws = await harness.seed.workspace(uniqueName("ws"));
    const root = ws.rootKey.key;
    await harness.rest.v2("permissions.createPermission", { slug: "files.read", name: "files.read" }, root);
    await harness.rest.v2("permissions.createRole", { name: "reader" }, root);
    const permissions = await harness.rest.v2("permissions.listPermissions", { search: "" }, root);
    expect({ status: permissions.status, slugs: permissions.body.data.map((p: { slug: string }) => p.slug) }).toEqual({ status: 200, slugs: ["files.read"] });
    const roles = await harness.rest.v2("permissions.listRoles", { search: "" }, root);
    expect({ status: roles.status, names: roles.body.data.map((r: { name: string }) => r.name) }).toEqual({ status: 200, names: ["reader"] });
    for (const op of ["permissions.listPermissions", "permissions.listRoles"] as const) {
      const long = await harness.rest.v2(op, { search: "s".repeat(256) }, root);
      expect({ status: long.status, data: long.body.data }).toEqual({ status: 200, data: [] });
    }
  });
});
