import { LimitRequestSchema, MultiLimitRequestSchema } from "../../gen/keyward/v1/ratelimits_pb.js";
import { CreditsSchema } from "../../gen/keyward/v1/keys_pb.js";
import { PERMISSION_CATALOGUE } from "../domain/permissions.js";
import { v2KeyOrIdentityWrite, v2VerifyKeyBounds } from "./dialect-bounds.js";
import { ADDRESS_RANGE_PATTERN } from "./address-pattern.js";
import { nullable, type JsonSchema } from "./json-schema.js";
import type { RouteShape, ShapeTools } from "./document.js";

/**
 * The v2 JSON of the routes where it differs from the proto JSON: fields only v1 reads (ratelimit-dialect.ts refuses
 * them on v2), fields v2 requires (v2Mappings in v1-dialect.ts), and answers v2Mappings reshape.
 */
function rowsOrBuckets(generated: JsonSchema): JsonSchema {
  return { ...generated, items: { anyOf: [generated.items as JsonSchema, { type: "object", additionalProperties: true }] } };
}

const STRUCTURED_FIELDS = [
  "start", "end", "granularity", "apiIds", "keyIds", "identityIds", "externalIds", "outcomes", "tags", "tagsMatch", "groupBy", "order", "limit",
];

const RATELIMIT_STRUCTURED_FIELDS = ["start", "end", "granularity", "namespaceIds", "identifiers", "outcome", "groupBy", "order", "limit"];

export const v2Shapes: Record<string, RouteShape> = {
  "/v2/apis.listKeys": { request: only({ omit: ["ownerId"] }) },
  // Unkey's SQL form answers rows whose properties are the query's columns; the structured form its buckets.
  "/v2/analytics.getVerifications": { response: rowsOrBuckets },
  "/v2/analytics.getRatelimits": { response: rowsOrBuckets },
  // The name cannot be cleared (null is a 400); allow-list entries are addresses or CIDR ranges.
  "/v2/apis.updateApi": {
    request: (generated) => withItemPattern(notNull(generated, "name"), "ipWhitelist", ADDRESS_RANGE_PATTERN),
  },
  "/v2/keys.verifyKey": {
    // The query's alphabet (domain/permission-query.ts); its grammar (AND / OR, parentheses) is beyond a pattern.
    request: (generated, t) => {
      const properties = generated.properties as Record<string, JsonSchema>;
      const permissions = {
        ...properties.permissions, pattern: "^[a-zA-Z0-9_:.*()\\s-]+$",
        description: "Permission names joined by AND / OR (any case; AND binds tighter), with parentheses.",
      };
      return v2VerifyKeyBounds({ ...generated, properties: { ...properties, permissions } }, t);
    },
    // NOT_FOUND answers carry only valid and code.
    response: (generated) => ({ ...generated, required: ["valid", "code"] }),
  },
  "/v2/keys.updateCredits": {
    // `value` null sets unlimited, as Unkey's v2 takes it.
    request: (generated) => {
      const properties = generated.properties as Record<string, JsonSchema>;
      return { ...generated, properties: { ...properties, value: nullable(properties.value) } };
    },
    // Credits with `remaining` always present: null says unlimited.
    response: (_, t) => ({
      type: "object",
      properties: { remaining: nullable(t.field(CreditsSchema, "remaining", "response")), refill: t.field(CreditsSchema, "refill", "response") },
      required: ["remaining"],
      additionalProperties: false,
    }),
  },
  // An absent list would read as "remove all": only an explicit [] does that.
  "/v2/keys.setPermissions": { request: requiring("permissions") },
  "/v2/keys.setRoles": { request: requiring("roles") },
  "/v2/identities.getIdentity": { request: only({ omit: ["identityId", "externalId"], require: ["identity"] }) },
  "/v2/keys.createKey": { request: v2KeyOrIdentityWrite },
  "/v2/keys.updateKey": { request: v2KeyOrIdentityWrite },
  "/v2/identities.createIdentity": { request: v2KeyOrIdentityWrite },
  // Its externalId (a v1 name of the identity) is omitted, so only the limit names change.
  "/v2/identities.updateIdentity": {
    request: (generated, t) => v2KeyOrIdentityWrite(only({ omit: ["identityId", "externalId"], require: ["identity"] })(generated), t),
  },
  "/v2/identities.deleteIdentity": { request: only({ omit: ["identityId", "externalId"], require: ["identity"] }) },
  "/v2/permissions.createPermission": { request: only({ require: ["slug"] }) },
  "/v2/permissions.getPermission": { request: only({ omit: ["permissionId"] }) },
  "/v2/permissions.deletePermission": { request: only({ omit: ["permissionId"] }) },
  "/v2/permissions.listPermissions": { request: only({ omit: ["all"] }) },
  "/v2/permissions.getRole": { request: only({ omit: ["roleId"] }) },
  "/v2/permissions.deleteRole": { request: only({ omit: ["roleId"] }) },
  "/v2/permissions.listRoles": { request: only({ omit: ["all"] }) },
  "/v2/rootKeys.createRootKey": {
    request: (generated) => withItemPattern(generated, "permissions", cataloguePattern()),
  },
  "/v2/ratelimit.limit": { request: only({ omit: ["async"] }) },
  // The body is the request's `limits` (the binding's `body: "limits"`): a bare array of checks.
  "/v2/ratelimit.multiLimit": { request: (_, t) => multiLimitBody(t) },
  "/v2/ratelimit.setOverride": { request: only({ omit: ["namespaceId", "namespaceName", "async"], require: ["namespace"] }) },
  "/v2/ratelimit.getOverride": { request: only({ omit: ["namespaceId", "namespaceName"], require: ["namespace"] }) },
  "/v2/ratelimit.listOverrides": { request: only({ omit: ["namespaceId", "namespaceName"], require: ["namespace"] }) },
  "/v2/ratelimit.deleteOverride": { request: only({ omit: ["namespaceId", "namespaceName"], require: ["namespace"] }) },
};

/** The credits rules of key-input.ts: a refill needs a balance; monthly refills name their day, daily ones do not. */
export const v2RequestRules: Record<string, JsonSchema> = {
  // analytics-service.ts: Unkey's SQL form (`query`) alone, or the structured form's range and granularity.
  "keyward.v1.GetVerificationsRequest": {
    anyOf: [
      { required: ["query"], properties: Object.fromEntries(STRUCTURED_FIELDS.map((name) => [name, false])) },
      { required: ["start", "end", "granularity"], properties: { query: false } },
    ],
  },
  "keyward.v1.GetRatelimitsRequest": {
    anyOf: [
      { required: ["query"], properties: Object.fromEntries(RATELIMIT_STRUCTURED_FIELDS.map((name) => [name, false])) },
      { required: ["start", "end", "granularity"], properties: { query: false } },
    ],
  },
  // On a new key (an update may give a refill to a key that has a balance).
  "keyward.v1.CreateKeyRequest": { allOf: [{ properties: { credits: { dependentRequired: { refill: ["remaining"] } } } }] },
  "keyward.v1.Refill": {
    anyOf: [
      { properties: { interval: { const: "daily" }, refillDay: false } },
      { properties: { interval: { const: "monthly" } }, required: ["refillDay"] },
    ],
  },
  // keys-service.ts: increment and decrement need a value.
  "keyward.v1.UpdateCreditsRequest": {
    anyOf: [
      { properties: { operation: { const: "set" } } },
      { properties: { operation: { enum: ["increment", "decrement"] }, value: { type: "integer" } }, required: ["value"] },
    ],
  },
};

/** The generated schema with `names` added to its required fields. */
function requiring(...names: string[]) {
  return (generated: JsonSchema): JsonSchema => ({ ...generated, required: [...new Set([...((generated.required ?? []) as string[]), ...names])] });
}

/** The generated schema without `omit` and with `require` added to its required fields (a name must be non-empty). */
function only(options: { omit?: string[]; require?: string[] }) {
  return (generated: JsonSchema): JsonSchema => {
    const omit = new Set(options.omit ?? []);
    const properties = Object.fromEntries(Object.entries(generated.properties as Record<string, JsonSchema>).filter(([name]) => !omit.has(name)));
    for (const name of options.require ?? []) {
      // Required: never null (an update's optional fields take null), never empty.
      const { type } = properties[name];
      properties[name] = { ...properties[name], type: Array.isArray(type) ? type[0] : type, minLength: Math.max(1, (properties[name].minLength as number) ?? 0) };
    }
    const required = [...new Set([...((generated.required ?? []) as string[]), ...(options.require ?? [])])].filter((name) => !omit.has(name));
    return { ...generated, properties, ...(required.length > 0 ? { required } : {}) };
  };
}

/** A catalogue permission (domain/permissions.ts): `<type>.<* or resource id>.<action>`, as createRootKey checks. */
function cataloguePattern(): string {
  const types = Object.entries(PERMISSION_CATALOGUE).map(([type, entry]) =>
    `${type}\\.(?:\\*${entry.specificIds ? "|[A-Za-z0-9_-]{1,255}" : ""})\\.(?:${entry.actions.join("|")})`);
  return `^(?:${types.join("|")})$`;
}

/** The property `name` without its `null` (an update's optional fields take null, except this one). */
function notNull(schema: JsonSchema, name: string): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  const { type } = properties[name];
  return { ...schema, properties: { ...properties, [name]: { ...properties[name], type: Array.isArray(type) ? type[0] : type } } };
}

function withItemPattern(schema: JsonSchema, name: string, pattern: string): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  const list = properties[name];
  return { ...schema, properties: { ...properties, [name]: { ...list, items: { ...(list.items as JsonSchema), pattern } } } };
}

function multiLimitBody(t: ShapeTools): JsonSchema {
  const limits = t.field(MultiLimitRequestSchema, "limits", "request");
  const check = t.component("LimitCheckInput", () => only({ omit: ["async"] })(t.inline(LimitRequestSchema, "request")));
  return { ...limits, items: check };
}
