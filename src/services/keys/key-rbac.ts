import type { MessageInitShape } from "@bufbuild/protobuf";
import type { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import type { PermissionSchema, RoleSchema } from "../../../gen/keyward/v1/permissions_pb.js";
import { notFound } from "../../domain/errors.js";
import type { KeyRecord } from "../../store/ports/key-records.js";
import { authorize, type Principal, type ServiceHandlers } from "../context.js";
import { permissionsOf, resolvePermissions, resolveRoles, rolesOf } from "../rbac/rbac-refs.js";
import { permissionView, roleViews } from "../rbac/rbac-views.js";
import type { KeysDeps } from "./key-context.js";
import { updateKeyWithRetry } from "./update-key-with-retry.js";

type RbacHandlers = Pick<ServiceHandlers<typeof KeysService>,
  "addPermissions" | "removePermissions" | "setPermissions" | "addRoles" | "removeRoles" | "setRoles">;

type Change = "add" | "remove" | "set";

/**
 * keys.{add,remove,set}{Permissions,Roles}. They need only the rbac action (as Unkey does), not an api one. The key
 * is loaded first, so an unknown key (or another workspace's) is 404 before anything is created; references are
 * resolved next (v2 creates missing ones), and the key is written last. Answers list the key's direct assignments.
 */
export function createKeyRbacHandlers(deps: KeysDeps): RbacHandlers {
  const { documents, clock } = deps;

  async function load(principal: Principal, keyId: string): Promise<KeyRecord> {
    const key = await documents.keys.get(principal.workspaceId, keyId);
    if (!key) throw notFound(`The key ${keyId} does not exist.`);
    return key;
  }

  /** Applies the change to the key's current list, re-read and re-applied when another write got in first; the
   * list written. */
  async function save(key: KeyRecord, field: "permissions" | "roles", change: Change, names: string[]): Promise<string[]> {
    const now = clock.now();
    const update = await updateKeyWithRetry(deps, key.workspaceId, key.id, (current) => ({ ...current, [field]: changed(current[field], change, names), updatedAt: now }), { read: key });
    if (!update) throw notFound(`The key ${key.id} does not exist.`);
    return update.after[field];
  }

  function changed(current: string[], change: Change, names: string[]): string[] {
    if (change === "set") return names;
    if (change === "remove") return current.filter((name) => !names.includes(name));
    return [...new Set([...current, ...names])];
  }

  async function permissions(principal: Principal, request: { keyId: string; permissions: string[]; createMissing?: boolean }, change: Change) {
    authorize(principal, { resourceType: "rbac", action: change === "remove" ? "remove_permission_from_key" : "add_permission_to_key" });
    const key = await load(principal, request.keyId);
    const createMissing = change !== "remove" && (request.createMissing ?? true);
    const resolved = await resolvePermissions(deps, principal, request.permissions, { createMissing });
    const next = await save(key, "permissions", change, resolved.map((p) => p.slug));
    const data: MessageInitShape<typeof PermissionSchema>[] = (await permissionsOf(deps, principal.workspaceId, next)).map(permissionView);
    return { data };
  }

  async function roles(principal: Principal, request: { keyId: string; roles: string[]; createMissing?: boolean }, change: Change) {
    authorize(principal, { resourceType: "rbac", action: change === "remove" ? "remove_role_from_key" : "add_role_to_key" });
    const key = await load(principal, request.keyId);
    const createMissing = change !== "remove" && (request.createMissing ?? true);
    const resolved = await resolveRoles(deps, principal, request.roles, { createMissing });
    const next = await save(key, "roles", change, resolved.map((r) => r.name));
    const data: MessageInitShape<typeof RoleSchema>[] = await roleViews(deps, principal.workspaceId, await rolesOf(deps, principal.workspaceId, next));
    return { data };
  }

  return {
    addPermissions: (request, { principal }) => permissions(principal, request, "add"),
    removePermissions: (request, { principal }) => permissions(principal, request, "remove"),
    setPermissions: (request, { principal }) => permissions(principal, request, "set"),
    addRoles: (request, { principal }) => roles(principal, request, "add"),
    removeRoles: (request, { principal }) => roles(principal, request, "remove"),
    setRoles: (request, { principal }) => roles(principal, request, "set"),
  };
}
