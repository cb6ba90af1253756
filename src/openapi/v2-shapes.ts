import { LimitRequestSchema, MultiLimitRequestSchema } from "../../gen/keyward/v1/ratelimits_pb.js";
import { CreditsSchema } from "../../gen/keyward/v1/keys_pb.js";
import { nullable, type JsonSchema } from "./json-schema.js";
import type { RouteShape, ShapeTools } from "./document.js";

/**
 * The v2 JSON of the routes where it differs from the proto JSON: fields only v1 reads (ratelimit-dialect.ts refuses
 * them on v2), fields v2 requires (v2Mappings in v1-dialect.ts), and answers v2Mappings reshape.
 */
export const v2Shapes: Record<string, RouteShape> = {
  "/v2/apis.listKeys": { request: only({ omit: ["ownerId"] }) },
  "/v2/keys.verifyKey": {
    // NOT_FOUND answers carry only valid and code.
    response: (generated) => ({ ...generated, required: ["valid", "code"] }),
  },
  "/v2/keys.updateCredits": {
    // Credits with `remaining` always present: null says unlimited.
    response: (_, t) => ({
      type: "object",
      properties: { remaining: nullable(t.field(CreditsSchema, "remaining", "response")), refill: t.field(CreditsSchema, "refill", "response") },
      required: ["remaining"],
      additionalProperties: false,
    }),
  },
  "/v2/identities.getIdentity": { request: only({ omit: ["identityId", "externalId"], require: ["identity"] }) },
  "/v2/identities.updateIdentity": { request: only({ omit: ["identityId", "externalId"], require: ["identity"] }) },
  "/v2/identities.deleteIdentity": { request: only({ omit: ["identityId", "externalId"], require: ["identity"] }) },
  "/v2/permissions.createPermission": { request: only({ require: ["slug"] }) },
  "/v2/permissions.getPermission": { request: only({ omit: ["permissionId"] }) },
  "/v2/permissions.deletePermission": { request: only({ omit: ["permissionId"] }) },
  "/v2/permissions.listPermissions": { request: only({ omit: ["all"] }) },
  "/v2/permissions.getRole": { request: only({ omit: ["roleId"] }) },
  "/v2/permissions.deleteRole": { request: only({ omit: ["roleId"] }) },
  "/v2/permissions.listRoles": { request: only({ omit: ["all"] }) },
  "/v2/ratelimit.limit": { request: only({ omit: ["async"] }) },
  // The body is the request's `limits` (the binding's `body: "limits"`): a bare array of checks.
  "/v2/ratelimit.multiLimit": { request: (_, t) => multiLimitBody(t) },
  "/v2/ratelimit.setOverride": { request: only({ omit: ["namespaceId", "namespaceName", "async"], require: ["namespace"] }) },
  "/v2/ratelimit.getOverride": { request: only({ omit: ["namespaceId", "namespaceName"], require: ["namespace"] }) },
  "/v2/ratelimit.listOverrides": { request: only({ omit: ["namespaceId", "namespaceName"], require: ["namespace"] }) },
  "/v2/ratelimit.deleteOverride": { request: only({ omit: ["namespaceId", "namespaceName"], require: ["namespace"] }) },
};

/** The generated schema without `omit` and with `require` added to its required fields (a name must be non-empty). */
function only(options: { omit?: string[]; require?: string[] }) {
  return (generated: JsonSchema): JsonSchema => {
    const omit = new Set(options.omit ?? []);
    const properties = Object.fromEntries(Object.entries(generated.properties as Record<string, JsonSchema>).filter(([name]) => !omit.has(name)));
    for (const name of options.require ?? []) properties[name] = { ...properties[name], minLength: Math.max(1, (properties[name].minLength as number) ?? 0) };
    const required = [...new Set([...((generated.required ?? []) as string[]), ...(options.require ?? [])])].filter((name) => !omit.has(name));
    return { ...generated, properties, ...(required.length > 0 ? { required } : {}) };
  };
}

function multiLimitBody(t: ShapeTools): JsonSchema {
  const limits = t.field(MultiLimitRequestSchema, "limits", "request");
  const check = t.component("LimitCheckInput", () => only({ omit: ["async"] })(t.inline(LimitRequestSchema, "request")));
  return { ...limits, items: check };
}
