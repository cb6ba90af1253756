import type { CreateKeyRequest } from "../../../gen/keyward/v1/keys_pb.js";
import type { ApiRecord } from "../../store/ports/apis.js";
import type { IdentityRecord, KeyRecord } from "../../store/ports/key-records.js";
import type { Principal } from "../context.js";
import { identityFor } from "./identities.js";
import { checkedMeta, creditsConfig, ratelimitRecords } from "./key-input.js";
import type { KeysDeps } from "./key-context.js";
import { assignedRbac } from "./key-rbac-input.js";

/** The settings of a new key, as createKey and an import both take them (the CreateKeyRequest fields they share). */
export type KeySettings = Pick<
  CreateKeyRequest,
  "name" | "externalId" | "meta" | "roles" | "permissions" | "expires" | "enabled" | "credits" | "ratelimits" | "environment"
>;

/** A key's settings after the checks that need no store: what the record and its counters are made from. */
export interface CheckedSettings {
  settings: KeySettings;
  credits: ReturnType<typeof creditsConfig>;
  meta: Record<string, unknown> | undefined;
  ratelimits: KeyRecord["ratelimits"];
}

/**
 * Checks a new key's settings without touching a store: credits and refill, metadata bounds, unique limit names.
 * `location` prefixes the field named by a refusal (`keys[3]` → `keys[3].credits.refill.refillDay`), so an import
 * names the key at fault. Throws INVALID_ARGUMENT; shared by createKey and imports so both refuse the same input.
 */
export function checkSettings(settings: KeySettings, options: Pick<KeysDeps, "randomBytes"> & { now: number; location?: string }): CheckedSettings {
  const at = (field: string) => (options.location ? `${options.location}.${field}` : field);
  return {
    settings,
    credits: creditsConfig(settings.credits, at("credits")),
    meta: checkedMeta(settings.meta, at("meta")),
    ratelimits: ratelimitRecords(settings.ratelimits, { now: options.now, randomBytes: options.randomBytes, location: at("ratelimits") }),
  };
}

/**
 * A key record without its secret (id, hash, start, encrypted) from checked settings: the identity it links to and
 * the roles and permissions it names, assigned (and created when missing) as createKey does. The one place a new
 * key's record is put together, for createKey, rerolls and imports alike.
 */
export function keyTemplate(
  checked: CheckedSettings,
  context: { api: ApiRecord; now: number; identity?: IdentityRecord; rbac: { permissions?: string[]; roles?: string[] } },
): Omit<KeyRecord, "id" | "hash" | "start" | "encrypted"> {
  const { settings } = checked;
  return {
    workspaceId: context.api.workspaceId,
    apiId: context.api.id,
    name: settings.name,
    meta: checked.meta,
    createdAt: context.now,
    expires: settings.expires === undefined ? undefined : Number(settings.expires),
    enabled: settings.enabled ?? true,
    environment: settings.environment,
    identityId: context.identity?.id,
    // The starting balance is what a percent credit level counts against until a refill rule or a new balance.
    credits: checked.credits.config && { ...checked.credits.config, base: checked.credits.remaining },
    ratelimits: checked.ratelimits,
    permissions: context.rbac.permissions ?? [],
    roles: context.rbac.roles ?? [],
  };
}

/** createKey's store steps for one key: its roles and permissions (created when missing), then its identity. */
export async function resolvedLinks(
  deps: KeysDeps,
  principal: Principal,
  settings: KeySettings & { createMissing?: boolean },
): Promise<{ rbac: { permissions?: string[]; roles?: string[] }; identity?: IdentityRecord }> {
  const rbac = await assignedRbac(deps, principal, { permissions: settings.permissions, roles: settings.roles, createMissing: settings.createMissing });
  const identity = settings.externalId ? await identityFor(deps, principal.workspaceId, settings.externalId) : undefined;
  return { rbac, identity };
}
