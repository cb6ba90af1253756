import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { effectivePermissions } from "../../src/domain/effective-permissions.js";
import { evaluatePermissionQuery, permissionQueryFromV1 } from "../../src/domain/permission-query.js";

describe("effectivePermissions", () => {
  const A = { name: "A", permissions: ["p1", "p2", "p3"] };
  const B = { name: "B", permissions: ["p1", "p4", "p5"] };

  it("is the direct permissions, then each role's in the key's role order, each once", () => {
    expect(effectivePermissions({ permissions: ["d", "p2"], roles: ["B", "A"] }, [A, B])).toEqual(["d", "p2", "p1", "p4", "p5", "p3"]);
  });

  it("ignores roles the key names that no longer exist, and roles it does not name", () => {
    expect(effectivePermissions({ permissions: [], roles: ["gone", "A"] }, [A, B])).toEqual(["p1", "p2", "p3"]);
  });

  it("feeds queries: p1 AND p4 needs both roles, p2 OR p4 either", () => {
    const query = (v1: unknown) => {
      const parsed = permissionQueryFromV1(v1);
      if ("error" in parsed) throw new Error(parsed.error.message);
      return parsed.query;
    };
    const granted = (roles: string[]) => new Set(effectivePermissions({ permissions: [], roles }, [A, B]));
    expect(evaluatePermissionQuery(query({ and: ["p1", "p4"] }), granted(["A"]))).toBe(false);
    expect(evaluatePermissionQuery(query({ and: ["p1", "p4"] }), granted(["A", "B"]))).toBe(true);
    expect(evaluatePermissionQuery(query({ or: ["p2", "p4"] }), granted(["B"]))).toBe(true);
  });

  it("equals the set union of direct and named roles' permissions for any input", () => {
    const name = fc.constantFrom("a", "b", "c", "d", "e");
    fc.assert(fc.property(
      fc.array(name), fc.array(fc.constantFrom<string>("r1", "r2", "r3")), fc.array(fc.record({ name: fc.constantFrom<string>("r1", "r2", "r4"), permissions: fc.array(name) })),
      (direct, roleNames, roles) => {
        const out = effectivePermissions({ permissions: direct, roles: roleNames }, roles);
        const byName = new Map(roles.map((r) => [r.name, r]));
        const want = new Set([...direct, ...roleNames.flatMap((n) => byName.get(n)?.permissions ?? [])]);
        expect(new Set(out)).toEqual(want);
        expect(out.length).toBe(want.size);
      },
    ), { numRuns: 500 });
  });
});
