import { CreditsSchema, KeySchema } from "../../gen/keyward/v1/keys_pb.js";
import { PermissionSchema } from "../../gen/keyward/v1/permissions_pb.js";
import { atLeast, v1Description } from "./dialect-bounds.js";
import { v1MigrationShapes } from "./v1-migration-shapes.js";
import { nullable, type JsonSchema } from "./json-schema.js";
import { object, type RouteShape } from "./document.js";
import {
  assignment, integer, legacyListedKey, list, minNameLength, reference, REFILL_NEEDS_BALANCE, v1Authorization, v1Identity, v1Key, v1KeyFields, v1Override, v1Role,
  withProperty,
} from "./v1-records.js";

/** One of the ways of naming the resource is required (a GET's query cannot say so). */
const anyRequired = (names: string[]) => (generated: JsonSchema): JsonSchema => ({ ...generated, anyOf: names.map((name) => ({ required: [name] })) });
const namespaceNamed = anyRequired(["namespace", "namespaceId", "namespaceName"]);
const identityNamed = anyRequired(["identity", "identityId", "externalId"]);

/** Unkey v1 createKey refuses a zero balance. */
const positiveRemaining = (schema: JsonSchema) => withProperty(schema, "remaining", (remaining) => ({ ...remaining, minimum: 1 }));

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
  ...v1MigrationShapes,
  // v1Mappings splits comma-joined groupBy values (the v1 SDK's arrays); the documented shape is the proto's.
  "/v1/analytics.getVerifications": {},
  "/v1/apis.listKeys": { response: (_, t) => list("keys", v1Key(t)) },
  // Unkey's legacy listing: offset paging, {keys, total}, fewer key fields (legacyListedKey in v1-dialect.ts).
  "/v1/apis/{apiId}/keys": { response: (_, t) => object({ keys: { type: "array", items: legacyListedKey(t) }, total: integer() }) },
  // Unkey v1's api, without the settings v2 shows (v1Mappings in v1-dialect.ts).
  "/v1/apis.getApi": {
    response: (generated) => {
      const properties = generated.properties as Record<string, JsonSchema>;
      const kept = ["id", "name", "workspaceId"];
      return { ...generated, properties: Object.fromEntries(kept.map((name) => [name, properties[name]])), required: kept };
    },
  },
  "/v1/liveness": {
    response: () => object({
      status: { type: "string", const: "ok" },
      services: object(Object.fromEntries(["metrics", "logger", "ratelimit", "usagelimit"].map((s) => [s, { type: "string" }]))),
    }),
  },
  "/v1/keys.createKey": { request: (generated, t) => ({ ...positiveRemaining(v1KeyFields(generated, t)), ...REFILL_NEEDS_BALANCE }) },
  "/v1/keys": {
    request: (generated, t) => ({
      ...withProperty(positiveRemaining(v1KeyFields(generated, t)), "prefix", (p) => ({ ...p, maxLength: 8 })), ...REFILL_NEEDS_BALANCE,
    }),
  },
  "/v1/keys.getKey": { response: (_, t) => v1Key(t) },
  "/v1/keys.whoami": {
    response: (_, t) => object({
      id: { type: "string" }, name: { type: "string" }, remaining: t.field(CreditsSchema, "remaining", "response"),
      meta: t.field(KeySchema, "meta", "response"), createdAt: integer(), lastUsedAt: t.field(KeySchema, "lastUsedAt", "response"),
      enabled: { type: "boolean" }, environment: { type: "string" },
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
        // value is required but may be null (unlimited).
        ...generated, properties: { ...rest, op: operation, value: nullable(value) }, required: ["keyId", "op", "value"],
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
  "/v1/identities.createIdentity": { request: atLeast("externalId", 3) },
  "/v1/identities.getIdentity": { response: (_, t) => v1Identity(t, { ratelimits: true }) },
  "/v1/identities.updateIdentity": { request: identityNamed, response: (_, t) => v1Identity(t, { ratelimits: true }) },
  "/v1/identities.deleteIdentity": { request: identityNamed },
  "/v1/identities.listIdentities": { response: (_, t) => list("identities", v1Identity(t, { ratelimits: true })) },

  // RBAC (v1-rbac-dialect.ts)
  // v1 takes the slug from the name.
  "/v1/permissions.createPermission": {
    request: (generated) => {
      const { slug, ...rest } = generated.properties as Record<string, JsonSchema>;
      return v1Description({ ...generated, properties: { ...rest, name: { ...slug, minLength: 3 } } });
    },
  },
  "/v1/permissions.createRole": { request: (generated) => v1Description(minNameLength(generated)) },
  "/v1/permissions.getPermission": { request: (generated) => reference(generated, "permission", "permissionId") },
  "/v1/permissions.deletePermission": { request: (generated) => reference(generated, "permission", "permissionId") },
  "/v1/permissions.listPermissions": { request: () => object({}), response: (_, t) => ({ type: "array", items: t.ref(PermissionSchema, "response") }) },
  "/v1/permissions.getRole": { request: (generated) => reference(generated, "role", "roleId"), response: () => v1Role() },
  "/v1/permissions.deleteRole": { request: (generated) => reference(generated, "role", "roleId") },
  "/v1/permissions.listRoles": { request: () => object({}), response: () => ({ type: "array", items: v1Role() }) },
  "/v1/keys.addPermissions": assignment("permissions", { nameKeys: ["name"], minItems: 1, creates: true }),
  "/v1/keys.setPermissions": assignment("permissions", { nameKeys: ["name", "slug"], minItems: 1, creates: true }),
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
  "/v1/ratelimits.setOverride": { request: (generated) => namespaceNamed(atLeast("identifier", 3)(generated)) },
  "/v1/ratelimits.getOverride": { response: (_, t) => v1Override(t) },
  "/v1/ratelimits.deleteOverride": { request: namespaceNamed },
  "/v1/ratelimits.listOverrides": { response: (_, t) => list("overrides", v1Override(t)) },
};
