/** The root-key permission catalogue (DESIGN.md §4): `<resourceType>.<resourceId|*>.<action>`. */
export const PERMISSION_CATALOGUE = {
  api: {
    specificIds: true,
    actions: [
      "create_api", "read_api", "update_api", "delete_api", "create_key", "read_key", "update_key", "delete_key",
      "verify_key", "encrypt_key", "decrypt_key", "read_analytics",
    ],
  },
  ratelimit: {
    specificIds: true,
    actions: [
      "create_namespace", "read_namespace", "update_namespace", "delete_namespace", "limit", "set_override",
      "read_override", "delete_override", "read_analytics",
    ],
  },
  rbac: {
    specificIds: false,
    actions: [
      "create_permission", "read_permission", "update_permission", "delete_permission", "create_role", "read_role",
      "update_role", "delete_role", "add_permission_to_key", "remove_permission_from_key", "add_role_to_key",
      "remove_role_from_key", "add_permission_to_role", "remove_permission_from_role",
    ],
  },
  identity: { specificIds: true, actions: ["create_identity", "read_identity", "update_identity", "delete_identity"] },
  rootkey: { specificIds: false, actions: ["create_root_key", "read_root_key", "delete_root_key"] },
  workspace: { specificIds: false, actions: ["create_workspace", "read_audit_log"] },
  webhook: { specificIds: true, actions: ["create_webhook", "read_webhook", "update_webhook", "delete_webhook"] },
} as const satisfies Record<string, { specificIds: boolean; actions: readonly string[] }>;

export type ResourceType = keyof typeof PERMISSION_CATALOGUE;

const RESOURCE_ID = /^[A-Za-z0-9_-]{1,255}$/;

/** True when `permission` names a catalogue action, with `*` or (where the type allows) a resource id. */
export function isCataloguePermission(permission: string): boolean {
  const parts = permission.split(".");
  if (parts.length !== 3) return false;
  const [type, id, action] = parts;
  if (!Object.hasOwn(PERMISSION_CATALOGUE, type)) return false;
  const entry = PERMISSION_CATALOGUE[type as ResourceType];
  if (!(entry.actions as readonly string[]).includes(action)) return false;
  return id === "*" || (entry.specificIds && RESOURCE_ID.test(id));
}

/** Every catalogue action with the wildcard resource: what a workspace's first root key holds. */
export function allPermissions(): string[] {
  return Object.entries(PERMISSION_CATALOGUE).flatMap(([type, entry]) =>
    entry.actions.map((action) => `${type}.*.${action}`),
  );
}

/** What an operation needs: the action on `*` or on the one resource it touches. */
export interface Requirement {
  resourceType: string;
  action: string;
  resourceId?: string;
}

/** `resource.*.action` OR `resource.<id>.action`; `*` is a literal grant, never a glob. */
export function satisfies(granted: ReadonlySet<string>, need: Requirement): boolean {
  if (granted.has(wildcardOf(need.resourceType, need.action))) return true;
  return need.resourceId !== undefined && granted.has(`${need.resourceType}.${need.resourceId}.${need.action}`);
}

// `type.*.action` per (type, action), made once: the pairs are the catalogue's (and callers' constants), and a string
// built per check would be hashed anew on every verification.
const wildcards = new Map<string, Map<string, string>>();

function wildcardOf(resourceType: string, action: string): string {
  let byAction = wildcards.get(resourceType);
  if (!byAction) {
    byAction = new Map();
    if (wildcards.size < MAX_MEMO) wildcards.set(resourceType, byAction);
  }
  let wildcard = byAction.get(action);
  if (wildcard === undefined) {
    wildcard = `${resourceType}.*.${action}`;
    // The catalogue bounds the pairs; should a caller pass others, past the bound they are built each time.
    if (byAction.size < MAX_MEMO) byAction.set(action, wildcard);
  }
  return wildcard;
}

const MAX_MEMO = 64;

/**
 * The resources of one type that grants reach for `action`: "all" with `type.*.action`, else the ids named by
 * `type.<id>.action` grants, ascending (empty: the action is not held at all). What a listing may show.
 */
export function grantedResourceIds(granted: ReadonlySet<string>, resourceType: string, action: string): "all" | string[] {
  if (granted.has(`${resourceType}.*.${action}`)) return "all";
  const prefix = `${resourceType}.`;
  const suffix = `.${action}`;
  const ids: string[] = [];
  for (const permission of granted) {
    if (!permission.startsWith(prefix) || !permission.endsWith(suffix)) continue;
    const id = permission.slice(prefix.length, permission.length - suffix.length);
    if (id !== "" && !id.includes(".")) ids.push(id);
  }
  return ids.sort();
}

/** True when the grants hold the action on any resource of the type: the check possible before loading. */
export function holdsActionAnywhere(granted: ReadonlySet<string>, resourceType: string, action: string): boolean {
  let held = heldActions.get(granted);
  if (!held) {
    held = new Map();
    for (const permission of granted) {
      const first = permission.indexOf(".");
      const last = permission.lastIndexOf(".");
      if (first <= 0 || last <= first) continue;
      const type = permission.slice(0, first);
      const actions = held.get(type) ?? new Set<string>();
      actions.add(permission.slice(last + 1));
      held.set(type, actions);
    }
    heldActions.set(granted, held);
  }
  return held.get(resourceType)?.has(action) === true;
}

// The actions held per resource type, per grant set, computed once: a principal's grants are built once and never
// changed, and this check runs on every request (looked up by the caller's strings, no key built per check).
const heldActions = new WeakMap<ReadonlySet<string>, Map<string, Set<string>>>();

/** The permissions of `requested` that `granted` does not cover: granting beyond one's own is refused. */
export function beyondGrants(granted: ReadonlySet<string>, requested: readonly string[]): string[] {
  return requested.filter((permission) => {
    if (granted.has(permission)) return false;
    const [type, , action] = permission.split(".");
    return !granted.has(`${type}.*.${action}`);
  });
}
