import { authorize, type Principal } from "../context.js";
import { lookUpPermissions, lookUpRoles, type RbacDeps } from "../rbac/rbac-refs.js";

/**
 * The roles and permissions keys.createKey / keys.updateKey assign, as the names the key record carries. Assigning
 * any needs the rbac action (rbac.*.add_permission_to_key / add_role_to_key, as Unkey v2 asks); referenced ones
 * that do not exist are created (needs rbac.*.create_permission / create_role). Every check runs before the first
 * creation, so a refused request creates nothing. Undefined lists stay undefined; an empty one asks for nothing.
 */
export async function assignedRbac(
  deps: RbacDeps,
  principal: Principal,
  input: { permissions?: string[]; roles?: string[] },
): Promise<{ permissions?: string[]; roles?: string[] }> {
  if (input.permissions?.length) authorize(principal, { resourceType: "rbac", action: "add_permission_to_key" });
  if (input.roles?.length) authorize(principal, { resourceType: "rbac", action: "add_role_to_key" });
  const permissions = input.permissions && (await lookUpPermissions(deps, principal, input.permissions));
  const roles = input.roles && (await lookUpRoles(deps, principal, input.roles));
  if (permissions?.missing.length) authorize(principal, { resourceType: "rbac", action: "create_permission" });
  if (roles?.missing.length) authorize(principal, { resourceType: "rbac", action: "create_role" });
  return {
    permissions: permissions && (await permissions.complete({ createMissing: true })).map((p) => p.slug),
    roles: roles && (await roles.complete({ createMissing: true })).map((r) => r.name),
  };
}
