import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import type { Via } from "../../support/operations.js";
import { useVerifyKit, type VerifyVia } from "../../support/verify-key.js";
import { connect, grpc, restV1, restV2, viaClient } from "../../support/vias.js";

/** A v1 query object; `v2Of` writes the same query as a v2 string. */
type Q = string | { and: Q[] } | { or: Q[] };
const v2Of = (q: Q, top = true): string => {
  if (typeof q === "string") return q;
  const [op, items] = "and" in q ? ["AND", q.and] : ["OR", q.or];
  const text = items.map((item) => v2Of(item, false)).join(` ${op} `);
  return top ? text : `(${text})`;
};

/** Role A grants p1,p2,p3 and role B p1,p4,p5 (DESIGN.md §3: effective = direct ∪ roles'). */
const CASES: { query: Q; a: boolean; ab: boolean; b: boolean }[] = [
  { query: "p1", a: true, ab: true, b: true },
  { query: "p4", a: false, ab: true, b: true },
  { query: { and: ["p1", "p2", "p3"] }, a: true, ab: true, b: false },
  { query: { and: ["p1", "p4"] }, a: false, ab: true, b: true },
  { query: { or: ["p4", "p2"] }, a: true, ab: true, b: true },
  { query: { and: [{ or: ["p4", "p5"] }, "p1"] }, a: false, ab: true, b: true },
  { query: { and: ["p3", { or: ["p6", { and: ["p5", "p2"] }] }] }, a: false, ab: true, b: false },
  { query: { or: ["p6", { and: ["p2", "p4"] }] }, a: false, ab: true, b: false },
  { query: { or: ["p6", { and: ["p1", { or: ["p2", "p5"] }] }] }, a: true, ab: true, b: true },
  { query: "p6", a: false, ab: false, b: false },
];

/** v1 names roles as `{name}` entries, v2 and RPC as strings. */
const roleInput = (via: Via, names: string[]) => (via === "v1" ? names.map((name) => ({ name })) : names);

describe("keys.verifyKey with roles and permission queries", () => {
  const kit = useVerifyKit();
  const client = (via: Via) => viaClient(kit.harness.keyward.baseUrl, via, kit.harness.keyward.rootKey);

  let ready: Promise<{ apiId: string }> | undefined;
  /** Roles A and B and permission p6, once per file. */
  const setup = () => (ready ??= createRoles());
  async function createRoles() {
    const h = kit.harness;
    const v2 = client(restV2);
    await v2.ok("permissions.createRole", { name: "A", permissions: ["p1", "p2", "p3"] });
    await v2.ok("permissions.createRole", { name: "B", permissions: ["p1", "p4", "p5"] });
    await v2.ok("permissions.createPermission", { slug: "p6", name: "p6" });
    const apiId = await h.seed.api({ name: "rbac" });
    return { apiId };
  }

  async function expectQueries(key: string, column: "a" | "ab" | "b") {
    for (const via of ["v1", "v2"] as VerifyVia[]) {
      for (const c of CASES) {
        const result = await kit.verify(via, { key, permissions: { v1: c.query, v2: v2Of(c.query).toLowerCase() } }); // lower-case keywords
        expect({ via, query: v2Of(c.query), code: result.code }).toEqual({ via, query: v2Of(c.query), code: c[column] ? "VALID" : "INSUFFICIENT_PERMISSIONS" });
      }
    }
  }

  it("evaluates and/or nestings against the union of the key's roles, over every way of assigning them", async () => {
    const { apiId } = await setup();
    for (const via of [restV1, restV2, connect, grpc]) {
      const { keyId, key } = await kit.harness.seed.key(apiId, { roles: ["A"] });
      await expectQueries(key, "a");
      const added = dataOf("keys.addRoles", await client(via).call("keys.addRoles", { keyId, roles: roleInput(via, ["B"]) }));
      expect(added.map((r: { name: string }) => r.name)).toEqual(["A", "B"]);
      await expectQueries(key, "ab");
      // setRoles replaces every role.
      const set = dataOf("keys.setRoles", await client(via).call("keys.setRoles", { keyId, roles: roleInput(via, ["B"]) }));
      expect(set.map((r: { name: string }) => r.name)).toEqual(["B"]);
      await expectQueries(key, "b");
      const verified = await kit.verify("v2", { key });
      expect(verified.payload).toMatchObject({ roles: ["B"], permissions: ["p1", "p4", "p5"] });
      const v1 = await kit.verify("v1", { key });
      expect(v1.payload).toMatchObject({ roles: ["B"], permissions: ["p1", "p4", "p5"] });
      await client(via).ok("keys.removeRoles", { keyId, roles: roleInput(via, ["B"]) });
      expect((await kit.verify("v2", { key, permissions: { v1: "p1", v2: "p1" } })).code).toBe("INSUFFICIENT_PERMISSIONS");
    }
  });

  it("keywords are case-insensitive and AND binds tighter than OR in the v2 string", async () => {
    const { apiId } = await setup();
    const { key } = await kit.harness.seed.key(apiId, { roles: ["B"] });
    const code = async (q: string) => (await kit.verify("v2", { key, permissions: { v1: "x", v2: q } })).code;
    expect(await code("p6 or p1 and p4")).toBe("VALID"); // p6 OR (p1 AND p4)
    expect(await code("(p6 Or p1) aNd p2")).toBe("INSUFFICIENT_PERMISSIONS");
    expect(await code("p2 AND p1 OR p5")).toBe("VALID"); // (p2 AND p1) OR p5
  });

  it("a changed role, a deleted permission and a deleted role are seen by the very next verification", async () => {
    const h = kit.harness;
    const v2 = client(restV2);
    await v2.ok("permissions.createRole", { name: "editor", permissions: ["doc.read", "doc.write"] });
    const apiId = await h.seed.api({ name: "cascade" });
    const { keyId, key } = await h.seed.key(apiId, { roles: ["editor"], permissions: ["doc.admin"] });
    const q = (text: string) => ({ key, permissions: { v1: text, v2: text } });
    expect((await kit.verify("v2", q("doc.write"))).code).toBe("VALID");
    // Warm the cache, then change the role: the next verification sees it.
    await v2.ok("permissions.setRolePermissions", { roleId: "editor", permissions: ["doc.read"] });
    expect((await kit.verify("v1", q("doc.write"))).code).toBe("INSUFFICIENT_PERMISSIONS");
    await v2.ok("permissions.deletePermission", { permission: "doc.read" });
    const afterPermission = await kit.verify("v2", q("doc.read"));
    expect(afterPermission.code).toBe("INSUFFICIENT_PERMISSIONS");
    expect(afterPermission.payload).toMatchObject({ permissions: ["doc.admin"], roles: ["editor"] });
    expect((await v2.ok("permissions.getRole", { role: "editor" })).permissions).toEqual([]);
    await v2.ok("permissions.deleteRole", { role: "editor" });
    const afterRole = await kit.verify("v1", q("doc.admin"));
    expect(afterRole.code).toBe("VALID");
    expect(afterRole.payload).toMatchObject({ permissions: ["doc.admin"], roles: [] });
    const got = dataOf("keys.getKey", await v2.call("keys.getKey", { keyId }));
    expect(got).toMatchObject({ permissions: ["doc.admin"], roles: [] });
    await v2.ok("permissions.deletePermission", { permission: "doc.admin" });
    expect((await kit.verify("v2", q("doc.admin"))).code).toBe("INSUFFICIENT_PERMISSIONS");
    expect((await h.keyward.documents.keys.get(h.keyward.workspaceId, keyId))?.permissions).toEqual([]);
  });

  it("getKey reports effective permissions (direct and via roles) and the roles", async () => {
    const v2 = client(restV2);
    await v2.ok("permissions.createRole", { name: "reader", permissions: ["r.one", "r.two"] });
    const apiId = await kit.harness.seed.api({ name: "getkey" });
    const { keyId } = await kit.harness.seed.key(apiId, { roles: ["reader"], permissions: ["direct", "r.one"] });
    for (const via of [restV2, connect]) {
      expect(dataOf("keys.getKey", await client(via).call("keys.getKey", { keyId }))).toMatchObject({
        permissions: ["direct", "r.one", "r.two"], roles: ["reader"],
      });
    }
    const v1 = await kit.harness.rest.v1Get("keys.getKey", { keyId }, kit.harness.keyward.rootKey);
    expect(v1.body).toMatchObject({ permissions: ["direct", "r.one", "r.two"], roles: ["reader"] });
  });
});
