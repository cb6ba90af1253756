import { KeywardError } from "../../domain/errors.js";
import { authorize, type Principal } from "../context.js";
import { lookUpPermissions, lookUpRoles, type RbacDeps } from "../rbac/rbac-refs.js";

/**
 * The roles and permissions keys.createKey / keys.updateKey assign, as the names the key record carries. Assigning
 * any needs the rbac action (rbac.*.add_permission_to_key / add_role_to_key, as Unkey v2 asks); referenced ones
 * that do not exist are created (needs rbac.*.create_permission / create_role). Every check runs before the first
 * creation, so a refused request creates nothing. Undefined lists stay undefined; an empty one asks for nothing.
 * With `createMissing: false` (v1) a missing one is 412, as Unkey v1 answers.
 */
export async function assignedRbac(
  deps: RbacDeps,
  principal: Principal,
  input: { permissions?: string[]; roles?: string[]; createMissing?: boolean },
): Promise<{ permissions?: string[]; roles?: string[] }> {
  if (input.permissions?.length) authorize(principal, { resourceType: "rbac", action: "add_permission_to_key" });
  if (input.roles?.length) authorize(principal, { resourceType: "rbac", action: "add_role_to_key" });
  const permissions = input.permissions && (await lookUpPermissions(deps, principal, input.permissions));
  const roles = input.roles && (await lookUpRoles(deps, principal, input.roles));
  if (input.createMissing === false) {
    // Unkey v1 refuses what does not exist instead of creating it.
    for (const [label, resolution] of [["Roles", roles], ["Permissions", permissions]] as const) {
      if (resolution?.missing.length) {
        throw new KeywardError("precondition", `${label} ${JSON.stringify(resolution.missing)} are missing, please create them first.`);
      }
    }
  }
  if (permissions?.missing.length) authorize(principal, { resourceType: "rbac", action: "create_permission" });
  if (roles?.missing.length) authorize(principal, { resourceType: "rbac", action: "create_role" });
  return {
    permissions: permissions && (await permissions.complete({ createMissing: true })).map((p) => p.slug),
    roles: roles && (await roles.complete({ createMissing: true })).map((r) => r.name),
  };
}
