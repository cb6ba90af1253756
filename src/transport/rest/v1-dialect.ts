import { invalid } from "../../domain/errors.js";
import { ratelimitV1Mappings, ratelimitV2Mappings } from "./ratelimit-dialect.js";
import { requireMinLength, requirePresent, v2KeyOrIdentityWrite, v2RatelimitNames, v2VerifyKeyRequest } from "./unkey-bounds.js";
import { v1RbacMappings } from "./v1-rbac-dialect.js";
import { v1MigrationMappings } from "./v1-migrations-dialect.js";
import type { DialectMapping } from "./dialect-mapping.js";

type Json = Record<string, any>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Drops keys whose value is undefined, so absent stays absent. */
function compact(json: Json): Json {
  return Object.fromEntries(Object.entries(json).filter(([, v]) => v !== undefined));
}

/** A v1 list: items under their own name, the cursor only while more pages exist, and the total. */
function v1List(itemsName: string, mapItem: (item: Json) => unknown = (item) => item) {
  return (json: Json) => {
    const pagination = (json.pagination ?? {}) as Json;
    return {
      [itemsName]: ((json.data ?? []) as Json[]).map(mapItem),
      ...(pagination.cursor ? { cursor: pagination.cursor } : {}),
      total: json.total ?? 0,
    };
  };
}

/** The v1 legacy single rate limit is the limit named `default`, applied automatically. */
function legacyLimit(ratelimit: unknown): unknown {
  if (ratelimit === null) return null;
  if (!isObject(ratelimit)) return ratelimit;
  const duration = ratelimit.duration ?? ratelimit.refillInterval;
  return [compact({ name: "default", limit: ratelimit.limit, duration, autoApply: true })];
}

/** v1 create/update fields onto the v2 shapes: ownerId → externalId, remaining/refill → credits, ratelimit → ratelimits. */
function v1KeyFields(input: unknown, options: { update: boolean }): unknown {
  if (!isObject(input)) return input;
  const { ownerId, remaining, refill, ratelimit, roles, permissions, ...rest } = input;
  const out: Json = { ...rest };
  if (ownerId !== undefined && out.externalId === undefined) out.externalId = ownerId;
  if (remaining !== undefined || refill !== undefined) {
    const v1Refill = isObject(refill) && refill.interval === "monthly" && refill.refillDay === undefined ? { ...refill, refillDay: 1 } : refill;
    out.credits = options.update ? compact({ remaining, refill: v1Refill }) : compact({ remaining, refill: v1Refill });
  }
  if (ratelimit !== undefined) out.ratelimits = legacyLimit(ratelimit);
  // v1 names roles and permissions by name (create/update) or as {id|name} objects (updateKey).
  const names = (list: unknown) => (Array.isArray(list) ? list.map((item) => (isObject(item) ? item.name ?? item.id : item)) : list);
  if (roles !== undefined) out.roles = names(roles);
  if (permissions !== undefined) out.permissions = names(permissions);
  // Unkey v1 refuses roles and permissions that do not exist (v2 creates them).
  if (roles !== undefined || permissions !== undefined) out.createMissing = false;
  return out;
}

/** Unkey v1 createKey refuses a zero balance ("remaining must be greater than 0"); v2 allows it. */
function v1CreateKeyFields(input: unknown): unknown {
  if (isObject(input) && input.remaining === 0) {
    throw invalid("remaining must be greater than 0.", [{ location: "remaining", message: "must be greater than 0" }]);
  }
  return v1KeyFields(input, { update: false });
}

/** The v1 key record (getKey, listKeys items). */
function v1Key(key: Json): Json {
  const credits = key.credits as Json | undefined;
  const defaultLimit = (key.ratelimits as Json[] | undefined)?.find((l) => l.name === "default");
  const identity = key.identity as Json | undefined;
  return compact({
    id: key.keyId,
    start: key.start,
    workspaceId: key.workspaceId,
    apiId: key.apiId,
    name: key.name,
    ownerId: identity?.externalId,
    meta: key.meta,
    createdAt: key.createdAt,
    updatedAt: key.updatedAt,
    lastUsedAt: key.lastUsedAt,
    expires: key.expires,
    remaining: credits?.remaining,
    refill: credits?.refill,
    ratelimit: defaultLimit && { async: false, limit: defaultLimit.limit, duration: defaultLimit.duration },
    roles: key.roles,
    permissions: key.permissions,
    enabled: key.enabled,
    plaintext: key.plaintext,
    identity: identity && compact({ id: identity.id, externalId: identity.externalId, meta: identity.meta }),
    environment: key.environment,
  });
}

/** Verification answers for unknown keys carry no key data. */
function withoutKeyDataWhenNotFound(json: Json): Json {
  return notFound(json) ? compact({ valid: json.valid ?? false, code: json.code, requestId: json.requestId }) : json;
}

/** A NOT_FOUND verification, told from its JSON or from the handler's output alike (`code` is copied as it is). */
const notFound = (answer: Json): boolean => answer.code === "NOT_FOUND";

/** The v1 identity: its limits as {name, limit, duration}, meta always an object; Keyward's shared credits when set. */
function v1Identity(identity: Json): Json {
  const ratelimits = (identity.ratelimits ?? []) as Json[];
  return compact({
    id: identity.id, externalId: identity.externalId, meta: identity.meta ?? {},
    ratelimits: ratelimits.map(({ name, limit, duration }) => ({ name, limit, duration })),
    credits: identity.credits,
  });
}

/** Keyward's identity credits on v1 take a key's v1 refill rule: a monthly refill defaults to day 1. */
function v1IdentityCredits(input: unknown): unknown {
  if (!isObject(input) || !isObject(input.credits) || !isObject(input.credits.refill)) return input;
  const { refill } = input.credits;
  if (refill.interval !== "monthly" || refill.refillDay !== undefined) return input;
  return { ...input, credits: { ...input.credits, refill: { ...refill, refillDay: 1 } } };
}

/**
 * The key as Unkey's legacy `GET /v1/apis/{apiId}/keys` listed it: fewer fields than v1 getKey, and the default
 * limit also under its old names (refillRate per refillInterval).
 */
function legacyListedKey(key: Json): Json {
  const v1 = v1Key(key);
  const limit = v1.ratelimit as Json | undefined;
  return compact({
    id: v1.id, start: v1.start, apiId: v1.apiId, workspaceId: v1.workspaceId, name: v1.name, ownerId: v1.ownerId,
    meta: v1.meta, createdAt: v1.createdAt, expires: v1.expires, remaining: v1.remaining,
    ratelimit: limit && { ...limit, refillRate: limit.limit, refillInterval: limit.duration },
  });
}

export const v1Mappings: Record<string, DialectMapping> = {
  ...ratelimitV1Mappings,
  ...v1MigrationMappings(v1KeyFields),
  // The v1 SDK sends an array parameter as one comma-joined value (`groupBy=key,day`); group names hold no comma.
  "/v1/analytics.getVerifications": {
    request: (input) => (isObject(input) && Array.isArray(input.groupBy)
      ? { ...input, groupBy: input.groupBy.flatMap((g: unknown) => (typeof g === "string" ? g.split(",") : [g])) }
      : input),
  },
  "/v1/apis.listKeys": { response: v1List("keys", v1Key) },
  // Unkey's legacy listing: offset paging, answered as {keys, total} (no cursor).
  "/v1/apis/{apiId}/keys": {
    response: (json) => ({ keys: ((json.data ?? []) as Json[]).map(legacyListedKey), total: json.total ?? 0 }),
  },
  // Unkey v1's api: the settings (apis.updateApi, a Keyward extension) are shown on v2 and the RPC protocols only.
  "/v1/apis.getApi": { response: ({ id, name, workspaceId }) => ({ id, name, workspaceId }) },
  "/v1/liveness": {
    response: () => ({ status: "ok", services: { metrics: "ok", logger: "ok", ratelimit: "ok", usagelimit: "ok" } }),
  },
  "/v1/keys.createKey": { request: v1CreateKeyFields },
  "/v1/keys": {
    request(input) {
      if (isObject(input) && typeof input.prefix === "string" && input.prefix.length > 8) {
        throw invalid("The legacy endpoint allows prefixes of at most 8 characters.", [{ location: "prefix", message: "at most 8 characters" }]);
      }
      return v1CreateKeyFields(input);
    },
  },
  "/v1/keys.getKey": { response: v1Key },
  "/v1/keys.whoami": {
    response: (key) => {
      const v1 = v1Key(key);
      return compact({
        id: v1.id, name: v1.name, remaining: v1.remaining, meta: v1.meta, createdAt: v1.createdAt, lastUsedAt: v1.lastUsedAt,
        enabled: v1.enabled, environment: v1.environment,
        identity: v1.identity && { id: v1.identity.id, externalId: v1.identity.externalId },
      });
    },
  },
  "/v1/keys.updateKey": { request: (input) => v1KeyFields(input, { update: true }) },
  "/v1/keys.updateRemaining": {
    request: (input) => {
      if (!isObject(input)) return input;
      const { op, value, ...rest } = input;
      // Unkey v1 takes null for unlimited but no absent value (which would otherwise read as unlimited too).
      if (!("value" in input)) throw invalid("value is required (null for unlimited).", [{ location: "value", message: "required" }]);
      return compact({ ...rest, operation: op, value: value === null ? undefined : value });
    },
    response: (credits) => ({ remaining: credits.remaining ?? null }),
  },
  "/v1/keys.verifyKey": {
    response: (json) => {
      const { createdAt: _createdAt, ...rest } = withoutKeyDataWhenNotFound(json);
      // The v1 identity is {id, externalId, meta} (plus Keyward's shared `credits`); the proto's also carries ratelimits.
      const identity = rest.identity as Json | undefined;
      if (identity) rest.identity = compact({ id: identity.id, externalId: identity.externalId, meta: identity.meta ?? {}, credits: identity.credits });
      return rest;
    },
  },
  ...v1RbacMappings,
  "/v1/keys/verify": {
    response: (json) => {
      const out = withoutKeyDataWhenNotFound(json);
      if (json.code === "NOT_FOUND") return out;
      return compact({
        keyId: out.keyId, valid: out.valid, name: out.name, ownerId: out.ownerId, meta: out.meta,
        createdAt: out.createdAt, expires: out.expires, ratelimit: out.ratelimit, remaining: out.remaining, code: out.code,
      });
    },
  },
  // Unkey v1 external ids have at least 3 characters (v2: 1).
  "/v1/identities.createIdentity": {
    request: (input) => {
      if (isObject(input)) requireMinLength(input.externalId, 3, "externalId");
      return v1IdentityCredits(input);
    },
  },
  "/v1/identities.getIdentity": { response: v1Identity },
  "/v1/identities.updateIdentity": { request: v1IdentityCredits, response: v1Identity },
  "/v1/identities.listIdentities": { response: v1List("identities", v1Identity) },
};

/** A request mapping that refuses a body leaving out one of `names` (unkey-bounds.ts requirePresent). */
function requiring(...names: string[]) {
  return (input: unknown) => {
    requirePresent(input, names);
    return input;
  };
}

/** Unkey's SQL form answers its rows as `data`; the structured form its buckets (one of the two is always empty). */
const sqlRowsOrData = (data: Json, full: Json) => ((full.rows as unknown[] | undefined)?.length ? full.rows : data);

/** v2 routes whose JSON needs more than the envelope. */
export const v2Mappings: Record<string, DialectMapping> = {
  ...ratelimitV2Mappings,
  // The proto lets v1 derive the slug from the name; v2 asks for it.
  "/v2/permissions.createPermission": { request: requiring("slug") },
  // An absent list would read as empty, which sets "none": only an explicit [] removes them all.
  "/v2/keys.setPermissions": { request: requiring("permissions") },
  "/v2/keys.setRoles": { request: requiring("roles") },
  "/v2/keys.verifyKey": { request: v2VerifyKeyRequest, response: withoutKeyDataWhenNotFound, responseOnly: notFound },
  "/v2/keys.createKey": { request: v2KeyOrIdentityWrite },
  "/v2/keys.updateKey": { request: v2KeyOrIdentityWrite },
  "/v2/identities.createIdentity": { request: v2KeyOrIdentityWrite },
  "/v2/identities.updateIdentity": { request: v2RatelimitNames },
  // v2 KeyCreditsData requires `remaining`; null says unlimited (the proto leaves it unset), in the request's
  // `value` as in the answer.
  "/v2/analytics.getVerifications": { response: sqlRowsOrData },
  "/v2/analytics.getRatelimits": { response: sqlRowsOrData },
  "/v2/keys.updateCredits": {
    request: (input) => (isObject(input) && input.value === null ? compact({ ...input, value: undefined }) : input),
    response: (credits) => ({ remaining: credits.remaining ?? null, ...compact({ refill: credits.refill }) }),
  },
};
