import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { seedKey, seedPermission, uniqueName } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.addPermissions / setPermissions / removePermissions", () => {
  const harness = useKeyward();
  const ws = () => harness.keyward.workspaceId;

  it("v2 and RPC add by slug or id (creating missing ones), set replaces, remove drops; each answers the key's direct permissions", async () => {
    for (const name of V2_AND_RPC) {
      const client = viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
      const known = uniqueName("known");
      const knownId = await seedPermission(harness, known);
      const { keyId } = await seedKey(harness, { permissions: ["first"] });
      const fresh = uniqueName("fresh");
      const added = dataOf("keys.addPermissions", await client.call("keys.addPermissions", { keyId, permissions: [knownId, fresh, "first"] }));
      expect(added.map((p: { slug: string }) => p.slug)).toEqual(["first", known, fresh]);
      expect(added[1]).toEqual({ id: knownId, name: known, slug: known });
      const set = dataOf("keys.setPermissions", await client.call("keys.setPermissions", { keyId, permissions: [fresh] }));
      expect(set.map((p: { slug: string }) => p.slug)).toEqual([fresh]);
      const removed = dataOf("keys.removePermissions", await client.call("keys.removePermissions", { keyId, permissions: [fresh] }));
      expect(removed).toEqual([]);
      expect((await harness.keyward.documents.keys.get(ws(), keyId))?.permissions).toEqual([]);
      const cleared = dataOf("keys.setPermissions", await client.call("keys.setPermissions", { keyId, permissions: [] }));
      expect(cleared).toEqual([]);
    }
  });

  it("v1 takes {id|name, create} entries and answers [{id, name}]; removePermissions answers {}", async () => {
    const { keyId } = await seedKey(harness);
    const knownId = await seedPermission(harness, "v1.known");
    const root = harness.keyward.rootKey;
    const added = await harness.rest.v1Post("keys.addPermissions", { keyId, permissions: [{ id: knownId }, { name: "v1.new", create: true }] }, root);
    expect(added.status).toBe(200);
    const [created] = await harness.keyward.documents.permissions.findBySlugs(ws(), ["v1.new"]);
    expect(added.body).toEqual([{ id: knownId, name: "v1.known" }, { id: created.id, name: "v1.new" }]);
    const set = await harness.rest.v1Post("keys.setPermissions", { keyId, permissions: [{ name: "v1.new" }] }, root);
    expect(set.body).toEqual([{ id: created.id, name: "v1.new" }]);
    const removed = await harness.rest.v1Post("keys.removePermissions", { keyId, permissions: [{ slug: "v1.new" }] }, root);
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 200, body: {} });
    expect((await harness.keyward.documents.keys.get(ws(), keyId))?.permissions).toEqual([]);
  });

  it("v2 takes permission slugs of 128 characters, as Unkey v2 (F3)", async () => {
    const { keyId } = await seedKey(harness);
    const slug = "a".repeat(128);
    const added = await harness.rest.v2("keys.addPermissions", { keyId, permissions: [slug] }, harness.keyward.rootKey);
    expect(added.status).toBe(200);
    expect((await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId))?.permissions).toEqual([slug]);
  });

  it("a key verified after an assignment sees it at once", async () => {
    const { keyId, key } = await seedKey(harness);
    const check = async () => (await harness.rest.v2("keys.verifyKey", { key, permissions: "late.grant" }, harness.keyward.rootKey)).body.data.code;
    expect(await check()).toBe("INSUFFICIENT_PERMISSIONS");
    await harness.rest.v2("keys.addPermissions", { keyId, permissions: ["late.grant"] }, harness.keyward.rootKey);
    expect(await check()).toBe("VALID");
    await harness.rest.v2("keys.removePermissions", { keyId, permissions: ["late.grant"] }, harness.keyward.rootKey);
    expect(await check()).toBe("INSUFFICIENT_PERMISSIONS");
  });
});
