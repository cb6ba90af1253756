import { STATUS_BY_KIND } from "../transport/status.js";
import type { Route } from "../transport/rest/routes.js";
import type { JsonSchema } from "./json-schema.js";

type Dialect = "v1" | "v2";

/** The operations that take an `Idempotency-Key` header (retry-safe verification). */
export const IDEMPOTENT = new Set(["VerifyKey", "VerifyKeyV1"]);

/** v1 `error.code` values beyond each status's own (errors.ts uses a `reason` where one refines it). */
const V1_REASONS = ["INSUFFICIENT_PERMISSIONS", "DELETE_PROTECTED"];

/**
 * The statuses a route may answer besides 200: bad input always, 413 and 415 for a body, the root-key answers (401/403) and
 * those of named resources and their state (404/412, 409 for writes) unless the route is public, and 503 when the
 * counter store is down for routes that count (and 409 for verification, an idempotency key reused). The property test checks every answer against these.
 */
export function errorStatuses(route: Route): number[] {
  const statuses = [400];
  if (!route.operation.access.public) statuses.push(401, 403, 404, 412);
  // Writes may conflict: a name taken, or a concurrent change to the same record.
  if (!route.operation.access.public && /^(Create|Update|Set|Add|Remove|Reroll)/.test(route.operation.method.name)) statuses.push(409);
  // An idempotency key reused with a different request.
  if (IDEMPOTENT.has(route.operation.method.name)) statuses.push(409);
  if (route.verb === "POST") statuses.push(413, 415);
  statuses.push(500);
  const counts = ["VerifyKey", "VerifyKeyV1", "Limit", "MultiLimit", "UpdateCredits"].includes(route.operation.method.name);
  if (counts) statuses.push(503);
  return statuses.sort((a, b) => a - b);
}

/** The error body schema of a dialect and one response component per status, named by the status. */
export function errorComponents(dialect: Dialect) {
  const byStatus = new Map<number, { title: string; v1Codes: Set<string> }>();
  for (const status of Object.values(STATUS_BY_KIND)) {
    const entry = byStatus.get(status.http) ?? { title: status.title, v1Codes: new Set<string>() };
    entry.v1Codes.add(status.v1Code);
    byStatus.set(status.http, entry);
  }
  byStatus.get(403)?.v1Codes.add("INSUFFICIENT_PERMISSIONS");
  byStatus.get(412)?.v1Codes.add("DELETE_PROTECTED");
  const responses: Record<string, JsonSchema> = {};
  for (const [status, { title, v1Codes }] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = dialect === "v2" ? v2ErrorSchema(status) : v1ErrorSchema([...v1Codes].sort());
    responses[String(status)] = {
      description: title,
      headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } },
      content: { "application/json": { schema } },
    };
  }
  const schemas: Record<string, JsonSchema> = dialect === "v2"
    ? {
      Meta: strict({ requestId: { type: "string", pattern: "^req_" } }),
      Error: strict({
        meta: { $ref: "#/components/schemas/Meta" },
        error: strict({
          title: { type: "string" },
          detail: { type: "string" },
          status: { type: "integer" },
          type: { type: "string", format: "uri" },
          errors: {
            type: "array", description: "400 only: each broken field.",
            items: strict({ location: { type: "string" }, message: { type: "string" } }),
          },
        }, ["title", "detail", "status", "type"]),
      }),
    }
    : {
      Error: strict({
        error: strict({
          code: { type: "string", enum: [...new Set([...Object.values(STATUS_BY_KIND).map((s) => s.v1Code), ...V1_REASONS])].sort() },
          message: { type: "string" },
          docs: { type: "string", format: "uri" },
          requestId: { type: "string", pattern: "^req_" },
        }),
      }),
    };
  return { schemas, responses };
}

/** v2: the shared error body, with this status in `error.status`. */
function v2ErrorSchema(status: number): JsonSchema {
  return {
    allOf: [{ $ref: "#/components/schemas/Error" }],
    properties: { error: { properties: { status: { const: status } } } },
  };
}

/** v1: the shared error body, with this status's codes in `error.code`. */
function v1ErrorSchema(codes: string[]): JsonSchema {
  return {
    allOf: [{ $ref: "#/components/schemas/Error" }],
    properties: { error: { properties: { code: { enum: codes } } } },
  };
}

function strict(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema {
  return { type: "object", properties, required, additionalProperties: false };
}
