import { CreditsSchema, IdentitySchema, KeySchema, RatelimitConfigSchema, RefillSchema } from "../../gen/keyward/v1/keys_pb.js";
import { RatelimitOverrideSchema } from "../../gen/keyward/v1/ratelimits_pb.js";
import type { JsonSchema } from "./json-schema.js";
import { object, type RouteShape, type ShapeTools } from "./document.js";

// The v1 records and request shapes v1-shapes.ts assembles, each after the mapping in src/transport/rest it mirrors.

export const REFILL_NEEDS_BALANCE = { dependentRequired: { refill: ["remaining"] } };

export const integer = (): JsonSchema => ({ type: "integer" });

/** A v1 paginated list: items under their own name, the cursor while more pages exist, and the total. */
export function list(itemsName: string, item: JsonSchema): JsonSchema {
  return object({ [itemsName]: { type: "array", items: item }, cursor: { type: "string" }, total: integer() }, [itemsName, "total"]);
}

/** v1 key fields: ownerId, remaining and refill, the legacy single ratelimit, roles and permissions by name. */
export function v1KeyFields(generated: JsonSchema, t: ShapeTools): JsonSchema {
  const { credits: _c, ratelimits: _r, createMissing: _m, externalId, ...properties } = generated.properties as Record<string, JsonSchema>;
  const limit = t.field(RatelimitConfigSchema, "limit", "request");
  const duration = t.field(RatelimitConfigSchema, "duration", "request");
  const legacyLimit = t.component("LegacyRatelimitInput", () => ({
    ...object({
      type: { type: "string", enum: ["fast", "consistent"] }, async: { type: "boolean" }, limit, duration,
      refillRate: integer(), refillInterval: { ...duration, description: "Deprecated name of duration." },
    }, ["limit", "duration"]),
    additionalProperties: true,
  }));
  return {
    ...generated,
    properties: {
      ...properties,
      ownerId: externalId,
      remaining: t.field(CreditsSchema, "remaining", "request"),
      refill: t.ref(RefillSchema, "request"),
      ratelimit: legacyLimit,
    },
  };
}

/** The v1 key record (v1Key in v1-dialect.ts). */
export function v1Key(t: ShapeTools): JsonSchema {
  return t.component("V1Key", () => object({
    id: { type: "string" }, start: { type: "string" }, workspaceId: { type: "string" }, apiId: { type: "string" },
    name: { type: "string" }, ownerId: { type: "string" }, meta: t.field(KeySchema, "meta", "response"),
    createdAt: integer(), updatedAt: integer(), lastUsedAt: t.field(KeySchema, "lastUsedAt", "response"), expires: integer(),
    remaining: integer(), refill: t.ref(RefillSchema, "response"),
    ratelimit: object({ async: { type: "boolean" }, limit: integer(), duration: integer() }),
    roles: { type: "array", items: { type: "string" } }, permissions: { type: "array", items: { type: "string" } },
    enabled: { type: "boolean" }, plaintext: { type: "string" },
    identity: object({ id: { type: "string" }, externalId: { type: "string" }, meta: t.field(IdentitySchema, "meta", "response") }, ["id", "externalId"]),
    environment: { type: "string" },
  }, ["id", "start", "workspaceId", "apiId", "createdAt", "roles", "permissions", "enabled"]));
}

/** A key as Unkey's legacy GET /v1/apis/{apiId}/keys lists it (legacyListedKey in v1-dialect.ts). */
export function legacyListedKey(t: ShapeTools): JsonSchema {
  return t.component("V1LegacyListedKey", () => object({
    id: { type: "string" }, start: { type: "string" }, apiId: { type: "string" }, workspaceId: { type: "string" },
    name: { type: "string" }, ownerId: { type: "string" }, meta: t.field(KeySchema, "meta", "response"),
    createdAt: integer(), expires: integer(), remaining: integer(),
    ratelimit: object({ async: { type: "boolean" }, limit: integer(), duration: integer(), refillRate: integer(), refillInterval: integer() }),
  }, ["id", "start", "apiId", "workspaceId", "createdAt"]));
}

/**
 * The v1 identity: meta always an object; with its limits as {name, limit, duration} where v1 shows them; Keyward's
 * shared credits when the identity has them.
 */
export function v1Identity(t: ShapeTools, options: { ratelimits: boolean }): JsonSchema {
  const base = {
    id: { type: "string" }, externalId: { type: "string" }, meta: t.field(IdentitySchema, "meta", "response"),
    credits: t.field(IdentitySchema, "credits", "response"),
  };
  if (!options.ratelimits) return object(base, ["id", "externalId"]);
  return t.component("V1Identity", () => object({
    ...base,
    ratelimits: { type: "array", items: object({ name: { type: "string" }, limit: integer(), duration: integer() }) },
  }, ["id", "externalId", "meta", "ratelimits"]));
}

/** The v1 permission query (permissionQueryFromV1): a name, or `{and: [...]}` / `{or: [...]}` of queries. */
export function v1Authorization(t: ShapeTools): JsonSchema {
  const query = { $ref: "#/components/schemas/PermissionQuery" };
  const operator = (name: string) => object({ [name]: { type: "array", items: query, minItems: 1 } });
  t.component("PermissionQuery", () => ({
    description: "A permission name, or {and: [queries]} / {or: [queries]}.",
    anyOf: [{ type: "string", minLength: 1 }, operator("and"), operator("or")],
  }));
  return t.component("V1AuthorizationInput", () => object({ permissions: query }, []));
}

export function v1Role(): JsonSchema {
  return object({ id: { type: "string" }, name: { type: "string" }, description: { type: "string" } }, ["id", "name"]);
}

export function v1Override(t: ShapeTools): JsonSchema {
  return t.component("V1Override", () => object({
    id: { type: "string" }, identifier: { type: "string" },
    limit: t.field(RatelimitOverrideSchema, "limit", "response"), duration: t.field(RatelimitOverrideSchema, "duration", "response"),
  }));
}

/** v1 names the role or permission by id in `roleId` / `permissionId` (required); the RPC's field is not v1's. */
export function reference(generated: JsonSchema, field: string, v1Field: string): JsonSchema {
  const { [field]: ref, [v1Field]: _, ...properties } = generated.properties as Record<string, JsonSchema>;
  return { ...generated, properties: { ...properties, [v1Field]: ref }, required: [v1Field] };
}

/** Unkey v1 refuses permission and role names shorter than 3 characters. */
export function minNameLength(generated: JsonSchema): JsonSchema {
  return withProperty(generated, "name", (name) => ({ ...name, minLength: 3 }));
}

/** v1 assignments take `[{id} | {name|slug, create?}]` and answer `[{id, name}]` ({} for removals). */
export function assignment(field: "permissions" | "roles", options: { nameKeys: string[]; minItems: number; creates: boolean }): RouteShape {
  return {
    request(generated) {
      const { [field]: list, createMissing: _, ...properties } = generated.properties as Record<string, JsonSchema>;
      const itemName = (list.items as JsonSchema) ?? { type: "string" };
      const entry = (key: string): JsonSchema => ({
        type: "object",
        properties: { [key]: itemName, ...(options.creates && key !== "id" ? { create: { type: "boolean" } } : {}) },
        required: [key],
      });
      const items = { anyOf: ["id", ...options.nameKeys].map(entry) };
      const maxItems = (list as { maxItems?: number }).maxItems;
      return {
        ...generated,
        properties: { ...properties, [field]: { type: "array", items, minItems: options.minItems, ...(maxItems ? { maxItems } : {}) } },
        required: ["keyId", field],
      };
    },
    response: () => options.creates
      ? { type: "array", items: object({ id: { type: "string" }, name: { type: "string" } }) }
      : object({}),
  };
}

export function withProperty(schema: JsonSchema, name: string, change: (property: JsonSchema) => JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  return { ...schema, properties: { ...properties, [name]: change(properties[name]) } };
}
