import { invalid } from "../../domain/errors.js";
import { requireMinLength } from "./unkey-bounds.js";
import type { DialectMapping } from "./dialect-mapping.js";

/**
 * The REST dialect mappings of RatelimitService (merged into v1Mappings and v2Mappings). The proto carries v1's
 * extra fields (`namespaceId`, `namespaceName`, `async`) so v1 bodies and GET queries decode; v2 never had them, so
 * they are unknown fields there.
 */

type Json = Record<string, any>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The v1 override record: `id` where v2 says `overrideId`. */
function v1Override(override: Json): Json {
  return { id: override.overrideId, identifier: override.identifier, limit: override.limit, duration: override.duration };
}

/** 400 naming every v1-only field present in `input` (and, for multiLimit, in each of its checks). */
function refuseV1Only(names: string[]) {
  const found = (value: unknown, at: string): string[] =>
    isObject(value) ? names.filter((name) => name in value).map((name) => `${at}${name}`) : [];
  return (input: unknown): unknown => {
    const checks = isObject(input) && Array.isArray(input.limits) ? (input.limits as unknown[]) : [];
    const locations = [...found(input, ""), ...checks.flatMap((check, i) => found(check, `limits[${i}].`))];
    if (locations.length > 0) {
      throw invalid(locations.map((location) => `body.${location}: is not a known field`).join("; "),
        locations.map((location) => ({ location, message: "is not a known field" })));
    }
    return input;
  };
}

export const ratelimitV1Mappings: Record<string, DialectMapping> = {
  // Unkey v1 defaults the namespace to `default`; its `limit` answer has no overrideId.
  "/v1/ratelimits.limit": {
    request: (input) => (isObject(input) && input.namespace === undefined ? { ...input, namespace: "default" } : input),
    response: (json) => ({ limit: json.limit, remaining: json.remaining, reset: json.reset, success: json.success ?? false }),
  },
  // Unkey v1 override identifiers have at least 3 characters.
  "/v1/ratelimits.setOverride": {
    request: (input) => {
      if (isObject(input)) requireMinLength(input.identifier, 3, "identifier");
      return input;
    },
  },
  "/v1/ratelimits.getOverride": { response: v1Override },
  "/v1/ratelimits.listOverrides": {
    response: (json) => {
      const cursor = (json.pagination as Json | undefined)?.cursor;
      return { overrides: ((json.data ?? []) as Json[]).map(v1Override), ...(cursor ? { cursor } : {}), total: json.total ?? 0 };
    },
  },
};

const v2Limit = refuseV1Only(["async"]);
const v2Override = refuseV1Only(["namespaceId", "namespaceName"]);

export const ratelimitV2Mappings: Record<string, DialectMapping> = {
  "/v2/ratelimit.limit": { request: v2Limit },
  // The Unkey v2 body is a bare array of checks: the request's `limits` (the binding's `body: "limits"`).
  "/v2/ratelimit.multiLimit": { request: (input) => v2Limit(Array.isArray(input) ? { limits: input } : input) },
  "/v2/ratelimit.setOverride": { request: refuseV1Only(["namespaceId", "namespaceName", "async"]) },
  "/v2/ratelimit.getOverride": { request: v2Override },
  // Unkey v2 pages overrides 10 at a time by default (v1 and the RPC: 100).
  "/v2/ratelimit.listOverrides": {
    request: (input) => {
      const checked = v2Override(input);
      return isObject(checked) && checked.limit === undefined ? { ...checked, limit: 10 } : checked;
    },
  },
  "/v2/ratelimit.deleteOverride": { request: v2Override },
};
