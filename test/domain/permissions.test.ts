import { describe, expect, it } from "vitest";
import {
  allPermissions, beyondGrants, grantedResourceIds, holdsActionAnywhere, isCataloguePermission, PERMISSION_CATALOGUE, satisfies,
} from "../../src/domain/permissions.js";

const grants = (...permissions: string[]) => new Set(permissions);

describe("isCataloguePermission", () => {
  it("accepts every catalogue action with the wildcard resource", () => {
    for (const permission of allPermissions()) expect({ permission, ok: isCataloguePermission(permission) }).toEqual({ permission, ok: true });
  });

  it("accepts specific resource ids on the types that have them", () => {
    for (const permission of [
      "api.api_1DLMiqwcu5AGGomV1PD4f7.read_api", "api.x.verify_key", "ratelimit.rlns_abc.limit",
      "identity.id_123.read_identity", "api.my-api_2.delete_key", `api.${"a".repeat(255)}.read_api`,
    ]) {
      expect({ permission, ok: isCataloguePermission(permission) }).toEqual({ permission, ok: true });
    }
  });

  it("rejects specific ids on rbac, rootkey and workspace, which only take `*`", () => {
    for (const permission of ["rbac.perm_1.create_role", "rootkey.key_1.create_root_key", "workspace.ws_1.create_workspace"]) {
      expect({ permission, ok: isCataloguePermission(permission) }).toEqual({ permission, ok: false });
    }
  });

  it("rejects unknown types and actions, wrong shapes, bad ids and case variants", () => {
    for (const permission of [
      "", "api", "api.*", "api.*.", ".*.read_api", "api..read_api", "api.*.read_api.x", "api.*.fly", "keys.*.read_api",
      "API.*.READ_API", "api.*.Read_Api", "api.a b.read_api", "api.a/b.read_api", "api.api_*.read_api",
      `api.${"a".repeat(256)}.read_api`, "api.*.create_root_key", "rootkey.*.read_api",
      "__proto__.*.read_api", "constructor.*.create_api", "toString.*.read_api",
    ]) {
      expect({ permission, ok: isCataloguePermission(permission) }).toEqual({ permission, ok: false });
    }
  });
});

describe("allPermissions", () => {
  it("lists each catalogue action once with `*`: 48 permissions including workspace creation, the audit log, rate-limit analytics and webhooks", () => {
    const all = allPermissions();
    const expected = Object.values(PERMISSION_CATALOGUE).reduce((n, entry) => n + entry.actions.length, 0);
    expect(all).toHaveLength(48);
    expect(expected).toBe(48);
    expect(new Set(all).size).toBe(48);
    expect(all).toContain("webhook.*.create_webhook");
    expect(all).toContain("ratelimit.*.read_analytics");
    expect(all).toContain("workspace.*.create_workspace");
    expect(all).toContain("workspace.*.read_audit_log");
    expect(all).toContain("rootkey.*.create_root_key");
    expect(all.every((p) => p.split(".")[1] === "*")).toBe(true);
  });
});

describe("satisfies", () => {
  it("passes on the wildcard grant, for any resource id or none", () => {
    const granted = grants("api.*.read_api");
    expect(satisfies(granted, { resourceType: "api", action: "read_api" })).toBe(true);
    expect(satisfies(granted, { resourceType: "api", action: "read_api", resourceId: "api_A" })).toBe(true);
  });

  it("passes on a grant for the specific resource only for that resource", () => {
    const granted = grants("api.api_A.read_api");
    expect(satisfies(granted, { resourceType: "api", action: "read_api", resourceId: "api_A" })).toBe(true);
    expect(satisfies(granted, { resourceType: "api", action: "read_api", resourceId: "api_B" })).toBe(false);
    // An operation not about one resource (create_api) needs the wildcard.
    expect(satisfies(grants("api.api_A.create_api"), { resourceType: "api", action: "create_api" })).toBe(false);
  });

  it("treats `*` as a literal grant, not a glob", () => {
    expect(satisfies(grants("api.*.read_api"), { resourceType: "api", action: "update_api", resourceId: "x" })).toBe(false);
    expect(satisfies(grants("api.*.*"), { resourceType: "api", action: "read_api" })).toBe(false);
    expect(satisfies(grants("*.*.read_api"), { resourceType: "api", action: "read_api" })).toBe(false);
    expect(satisfies(grants("api.api_*.read_api"), { resourceType: "api", action: "read_api", resourceId: "api_A" })).toBe(false);
    expect(satisfies(grants("api.*.read_api"), { resourceType: "ratelimit", action: "read_api" })).toBe(false);
  });

  it("fails with no grants", () => {
    expect(satisfies(grants(), { resourceType: "api", action: "read_api", resourceId: "api_A" })).toBe(false);
  });
});

describe("holdsActionAnywhere", () => {
  it("is true when the action is held on `*` or on any one resource of the type", () => {
    expect(holdsActionAnywhere(grants("api.*.delete_api"), "api", "delete_api")).toBe(true);
    expect(holdsActionAnywhere(grants("rbac.*.read_role", "api.api_A.delete_api"), "api", "delete_api")).toBe(true);
  });

  it("is false for another action, another type, or an action that only shares a suffix", () => {
    const granted = grants("api.*.read_api", "ratelimit.*.delete_namespace", "api.*.create_key");
    expect(holdsActionAnywhere(granted, "api", "delete_api")).toBe(false);
    expect(holdsActionAnywhere(granted, "ratelimit", "read_api")).toBe(false);
    expect(holdsActionAnywhere(granted, "api", "key")).toBe(false);
    expect(holdsActionAnywhere(grants("apis.*.read_api"), "api", "read_api")).toBe(false);
    expect(holdsActionAnywhere(grants(), "api", "read_api")).toBe(false);
  });
});

describe("grantedResourceIds", () => {
  it("is all with the wildcard grant, whatever specific grants sit beside it", () => {
    expect(grantedResourceIds(grants("api.*.read_api", "api.api_A.read_api"), "api", "read_api")).toBe("all");
  });

  it("is the ids of the specific grants of exactly this type and action, ascending and each once", () => {
    const granted = grants(
      "api.api_C.read_api", "api.api_A.read_api", "api.api_B.delete_api", "ratelimit.api_D.read_api", "api.*.read_key",
      "apis.api_E.read_api", "api.api_F.read_apis",
    );
    expect(grantedResourceIds(granted, "api", "read_api")).toEqual(["api_A", "api_C"]);
    expect(grantedResourceIds(grants("ratelimit.rlns_2.read_namespace", "ratelimit.rlns_1.read_namespace"), "ratelimit", "read_namespace"))
      .toEqual(["rlns_1", "rlns_2"]);
  });

  it("is empty when the action is not held at all, or only through malformed grants", () => {
    expect(grantedResourceIds(grants(), "api", "read_api")).toEqual([]);
    expect(grantedResourceIds(grants("api..read_api", "api.a.b.read_api", "api.*.create_api"), "api", "read_api")).toEqual([]);
  });
});

describe("beyondGrants", () => {
  it("returns nothing when every requested permission is held exactly or covered by the wildcard", () => {
    const granted = grants("api.*.read_api", "api.api_A.delete_api");
    expect(beyondGrants(granted, ["api.*.read_api", "api.api_B.read_api", "api.api_A.delete_api"])).toEqual([]);
    expect(beyondGrants(granted, [])).toEqual([]);
  });

  it("returns, in request order, what is not covered: a specific grant never covers the wildcard or another id", () => {
    const granted = grants("api.api_A.read_api", "rootkey.*.create_root_key");
    expect(beyondGrants(granted, ["api.*.read_api", "api.api_A.read_api", "api.api_B.read_api", "workspace.*.create_workspace"]))
      .toEqual(["api.*.read_api", "api.api_B.read_api", "workspace.*.create_workspace"]);
  });

  it("does not let one action cover another", () => {
    expect(beyondGrants(grants("api.*.read_api"), ["api.*.update_api", "api.api_A.update_api"]))
      .toEqual(["api.*.update_api", "api.api_A.update_api"]);
  });
});
