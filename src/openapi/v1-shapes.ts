import { IdentitySchema, KeySchema, RatelimitConfigSchema, RefillSchema, CreditsSchema } from "../../gen/keyward/v1/keys_pb.js";
import { PermissionSchema } from "../../gen/keyward/v1/permissions_pb.js";
import { RatelimitOverrideSchema } from "../../gen/keyward/v1/ratelimits_pb.js";
import { nullable, type JsonSchema } from "./json-schema.js";
import { object, type RouteShape, type ShapeTools } from "./document.js";

/** One of the ways of naming the resource is required (a GET's query cannot say so). */
const anyRequired = (names: string[]) => (generated: JsonSchema): JsonSchema => ({ ...generated, anyOf: names.map((name) => ({ required: [name] })) });
const namespaceNamed = anyRequired(["namespace", "namespaceId", "namespaceName"]);
const identityNamed = anyRequired(["identity", "identityId", "externalId"]);

/** As on v2, except that a monthly refill's day defaults to 1 (v1KeyFields in v1-dialect.ts). */
export const v1RequestRules: Record<string, JsonSchema> = {
  "keyward.v1.Refill": {
    anyOf: [{ properties: { interval: { const: "daily" }, refillDay: false } }, { properties: { interval: { const: "monthly" } } }],
  },
};

/**
 * The v1 JSON of each route that src/transport/rest/v1-dialect.ts, v1-rbac-dialect.ts and ratelimit-dialect.ts map:
 * what those mappings read and write, in terms of the proto's schemas. Routes not listed here speak the proto JSON.
 * (test/openapi checks every mapped route has a shape here, and every answer against it.)
 */
export const v1Shapes: Record<string, RouteShape> = {
  "/v1/apis.listKeys": { response: (_, t) => list("keys", v1Key(t)) },
  "/v1/liveness": {
    response: () => object({
      status: { type: "string", const: "ok" },
      services: object(Object.fromEntries(["metrics", "logger", "ratelimit", "usagelimit"].map((s) => [s, { type: "string" }]))),
    }),
  },
  "/v1/keys.createKey": { request: (generated, t) => ({ ...v1KeyFields(generated, t), ...REFILL_NEEDS_BALANCE }) },
  "/v1/keys": {
    request: (generated, t) => ({ ...withProperty(v1KeyFields(generated, t), "prefix", (p) => ({ ...p, maxLength: 8 })), ...REFILL_NEEDS_BALANCE }),
  },
  "/v1/keys.getKey": { response: (_, t) => v1Key(t) },
  "/v1/keys.whoami": {
    response: (_, t) => object({
      id: { type: "string" }, name: { type: "string" }, remaining: t.field(CreditsSchema, "remaining", "response"),
      meta: t.field(KeySchema, "meta", "response"), createdAt: integer(), enabled: { type: "boolean" }, environment: { type: "string" },
      identity: object({ id: { type: "string" }, externalId: { type: "string" } }),
    }, ["id", "createdAt", "enabled"]),
  },
  "/v1/keys.updateKey": {
    request: (generated, t) => {
      const v1 = v1KeyFields(generated, t);
      const properties = v1.properties as Record<string, JsonSchema>;
      for (const name of ["ownerId", "remaining", "refill", "ratelimit"]) properties[name] = nullable(properties[name]);
      return v1;
    },
  },
  "/v1/keys.updateRemaining": {
    request: (generated) => {
      const { operation, value, ...rest } = generated.properties as Record<string, JsonSchema>;
      return {
        ...generated, properties: { ...rest, op: operation, value: nullable(value) }, required: ["keyId", "op"],
        // keys-service.ts: increment and decrement need a value (null is none).
        anyOf: [{ properties: { op: { const: "set" } } }, { properties: { op: { enum: ["increment", "decrement"] }, value }, required: ["value"] }],
      };
    },
    response: (_, t) => object({ remaining: nullable(t.field(CreditsSchema, "remaining", "response")) }),
  },
  "/v1/keys.verifyKey": {
    request: (generated, t) => withProperty(generated, "authorization", () => v1Authorization(t)),
    // NOT_FOUND answers carry only valid, code and requestId; v1's identity has no ratelimits.
    response: (generated, t) => {
      const { createdAt: _, ...properties } = generated.properties as Record<string, JsonSchema>;
      return { ...generated, properties: { ...properties, identity: v1Identity(t, { ratelimits: false }) }, required: ["valid", "code"] };
    },
  },
  "/v1/keys/verify": {
    request: (generated, t) => withProperty(generated, "authorization", () => v1Authorization(t)),
    response: (generated) => {
      const all = generated.properties as Record<string, JsonSchema>;
      // NOT_FOUND answers carry only valid, code and requestId.
      const keep = ["keyId", "valid", "name", "ownerId", "meta", "createdAt", "expires", "ratelimit", "remaining", "code", "requestId"];
      return { ...generated, properties: Object.fromEntries(keep.map((name) => [name, all[name]])), required: ["valid", "code"] };
    },
  },
  "/v1/identities.getIdentity": { response: (_, t) => v1Identity(t, { ratelimits: true }) },
  "/v1/identities.updateIdentity": { request: identityNamed, response: (_, t) => v1Identity(t, { ratelimits: true }) },
  "/v1/identities.deleteIdentity": { request: identityNamed },
  "/v1/identities.listIdentities": { response: (_, t) => list("identities", v1Identity(t, { ratelimits: true })) },

  // RBAC (v1-rbac-dialect.ts)
  // v1 takes the slug from the name.
  "/v1/permissions.createPermission": {
    request: (generated) => {
      const { slug, ...rest } = generated.properties as Record<string, JsonSchema>;
      return { ...generated, properties: { ...rest, name: { ...slug, minLength: 3 } } };
    },
  },
  "/v1/permissions.createRole": { request: (generated) => minNameLength(generated) },
  "/v1/permissions.getPermission": { request: (generated) => reference(generated, "permission", "permissionId") },
  "/v1/permissions.deletePermission": { request: (generated) => reference(generated, "permission", "permissionId") },
  "/v1/permissions.listPermissions": { request: () => object({}), response: (_, t) => ({ type: "array", items: t.ref(PermissionSchema, "response") }) },
  "/v1/permissions.getRole": { request: (generated) => reference(generated, "role", "roleId"), response: () => v1Role() },
  "/v1/permissions.deleteRole": { request: (generated) => reference(generated, "role", "roleId") },
  "/v1/permissions.listRoles": { request: () => object({}), response: () => ({ type: "array", items: v1Role() }) },
  "/v1/keys.addPermissions": assignment("permissions", { nameKeys: ["name"], minItems: 1, creates: true }),
  "/v1/keys.setPermissions": assignment("permissions", { nameKeys: ["name", "slug"], minItems: 0, creates: true }),
  "/v1/keys.removePermissions": assignment("permissions", { nameKeys: ["slug", "name"], minItems: 1, creates: false }),
  "/v1/keys.addRoles": assignment("roles", { nameKeys: ["name"], minItems: 1, creates: true }),
  "/v1/keys.setRoles": assignment("roles", { nameKeys: ["name"], minItems: 1, creates: true }),
  "/v1/keys.removeRoles": assignment("roles", { nameKeys: ["name"], minItems: 1, creates: false }),

  // Standalone rate limits (ratelimit-dialect.ts)
  "/v1/ratelimits.limit": {
    request: (generated) => ({ ...generated, required: (generated.required as string[]).filter((name) => name !== "namespace") }),
    response: (generated) => {
      const { overrideId: _, ...properties } = generated.properties as Record<string, JsonSchema>;
      return { ...generated, properties };
    },
  },
  "/v1/ratelimits.setOverride": { request: namespaceNamed },
  "/v1/ratelimits.getOverride": { response: (_, t) => v1Override(t) },
  "/v1/ratelimits.deleteOverride": { request: namespaceNamed },
  "/v1/ratelimits.listOverrides": { response: (_, t) => list("overrides", v1Override(t)) },
};

const REFILL_NEEDS_BALANCE = { dependentRequired: { refill: ["remaining"] } };

const integer = (): JsonSchema => ({ type: "integer" });

/** A v1 paginated list: items under their own name, the cursor while more pages exist, and the total. */
function list(itemsName: string, item: JsonSchema): JsonSchema {
  return object({ [itemsName]: { type: "array", items: item }, cursor: { type: "string" }, total: integer() }, [itemsName, "total"]);
}

/** v1 key fields: ownerId, remaining and refill, the legacy single ratelimit, roles and permissions by name. */
function v1KeyFields(generated: JsonSchema, t: ShapeTools): JsonSchema {
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
function v1Key(t: ShapeTools): JsonSchema {
  return t.component("V1Key", () => object({
    id: { type: "string" }, start: { type: "string" }, workspaceId: { type: "string" }, apiId: { type: "string" },
    name: { type: "string" }, ownerId: { type: "string" }, meta: t.field(KeySchema, "meta", "response"),
    createdAt: integer(), updatedAt: integer(), expires: integer(),
    remaining: integer(), refill: t.ref(RefillSchema, "response"),
    ratelimit: object({ async: { type: "boolean" }, limit: integer(), duration: integer() }),
    roles: { type: "array", items: { type: "string" } }, permissions: { type: "array", items: { type: "string" } },
    enabled: { type: "boolean" }, plaintext: { type: "string" },
    identity: object({ id: { type: "string" }, externalId: { type: "string" }, meta: t.field(IdentitySchema, "meta", "response") }, ["id", "externalId"]),
    environment: { type: "string" },
  }, ["id", "start", "workspaceId", "apiId", "createdAt", "roles", "permissions", "enabled"]));
}

/** The v1 identity: meta always an object; with its limits as {name, limit, duration} where v1 shows them. */
function v1Identity(t: ShapeTools, options: { ratelimits: boolean }): JsonSchema {
  const base = { id: { type: "string" }, externalId: { type: "string" }, meta: t.field(IdentitySchema, "meta", "response") };
  if (!options.ratelimits) return object(base, ["id", "externalId"]);
  return t.component("V1Identity", () => object({
    ...base,
    ratelimits: { type: "array", items: object({ name: { type: "string" }, limit: integer(), duration: integer() }) },
  }));
}

/** The v1 permission query (permissionQueryFromV1): a name, or `{and: [...]}` / `{or: [...]}` of queries. */
function v1Authorization(t: ShapeTools): JsonSchema {
  const query = { $ref: "#/components/schemas/PermissionQuery" };
  const operator = (name: string) => object({ [name]: { type: "array", items: query, minItems: 1 } });
  t.component("PermissionQuery", () => ({
    description: "A permission name, or {and: [queries]} / {or: [queries]}.",
    anyOf: [{ type: "string", minLength: 1 }, operator("and"), operator("or")],
  }));
  return t.component("V1AuthorizationInput", () => object({ permissions: query }, []));
}

function v1Role(): JsonSchema {
  return object({ id: { type: "string" }, name: { type: "string" }, description: { type: "string" } }, ["id", "name"]);
}

function v1Override(t: ShapeTools): JsonSchema {
  return t.component("V1Override", () => object({
    id: { type: "string" }, identifier: { type: "string" },
    limit: t.field(RatelimitOverrideSchema, "limit", "response"), duration: t.field(RatelimitOverrideSchema, "duration", "response"),
  }));
}

/** v1 names the role or permission by id in `roleId` / `permissionId` (required); the RPC's field is not v1's. */
function reference(generated: JsonSchema, field: string, v1Field: string): JsonSchema {
  const { [field]: ref, [v1Field]: _, ...properties } = generated.properties as Record<string, JsonSchema>;
  return { ...generated, properties: { ...properties, [v1Field]: ref }, required: [v1Field] };
}

/** Unkey v1 refuses permission and role names shorter than 3 characters. */
function minNameLength(generated: JsonSchema): JsonSchema {
  return withProperty(generated, "name", (name) => ({ ...name, minLength: 3 }));
}

/** v1 assignments take `[{id} | {name|slug, create?}]` and answer `[{id, name}]` ({} for removals). */
function assignment(field: "permissions" | "roles", options: { nameKeys: string[]; minItems: number; creates: boolean }): RouteShape {
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

function withProperty(schema: JsonSchema, name: string, change: (property: JsonSchema) => JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  return { ...schema, properties: { ...properties, [name]: change(properties[name]) } };
}
