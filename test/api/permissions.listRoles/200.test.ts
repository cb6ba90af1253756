import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { uniqueName } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("permissions.listRoles", () => {
  const harness = useKeyward();

  it("pages a workspace's roles with their permissions (v2 and RPC); v1 lists them all as bare {id, name, description}", async () => {
    const ws = await harness.seed.workspace(uniqueName("ws"));
    const root = ws.rootKey.key;
    const roles: { id: string; name: string; permissions: string[] }[] = [];
    for (const [name, permissions] of [["admin", ["a", "b"]], ["editor", ["b"]], ["viewer", []]] as const) {
      harness.clock.advance(1);
      const roleId = (await harness.rest.v2("permissions.createRole", { name, description: `${name} role`, permissions }, root)).body.data.roleId;
      roles.push({ id: roleId, name, permissions: [...permissions] });
    }
    const [a, b] = (await harness.keyward.documents.permissions.findBySlugs(ws.workspaceId, ["a", "b"])).sort((x, y) => x.slug.localeCompare(y.slug));
    const view = (p: typeof a) => ({ id: p.id, name: p.name, slug: p.slug });
    const full = [
      { id: roles[0].id, name: "admin", description: "admin role", permissions: [view(a), view(b)] },
      { id: roles[1].id, name: "editor", description: "editor role", permissions: [view(b)] },
      { id: roles[2].id, name: "viewer", description: "viewer role", permissions: [] },
    ];
    for (const name of V2_AND_RPC) {
      const client = viaClient(harness.keyward.baseUrl, name, root);
      const first = await client.call("permissions.listRoles", { limit: 2 });
      const page = first.via === "v2" ? first.rest.body : dataOf("permissions.listRoles", first);
      expect(page.data).toEqual(full.slice(0, 2));
      expect(page.pagination.hasMore).toBe(true);
      const next = await client.call("permissions.listRoles", { cursor: page.pagination.cursor });
      const rest = next.via === "v2" ? next.rest.body : dataOf("permissions.listRoles", next);
      expect(rest.data).toEqual(full.slice(2));
      expect(rest.pagination.hasMore).toBe(false);
    }
    const v1 = await harness.rest.v1Get("permissions.listRoles", {}, root);
    expect(v1.body).toEqual(full.map(({ permissions: _p, ...role }) => role));
  });
});
