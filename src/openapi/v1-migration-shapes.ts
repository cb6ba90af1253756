import { MigrateKeyDataSchema } from "../../gen/keyward/v1/keys_pb.js";
import type { RouteShape, ShapeTools } from "./document.js";
import type { JsonSchema } from "./json-schema.js";
import { v1KeyFields } from "./v1-records.js";

const MAX_KEYS = 100; // V1_MIGRATION_MAX_KEYS in v1-migrations-dialect.ts

/** One v1 key to import: v1 key fields, `hash: {value, variant}` or `plaintext`, an optional prefix (ignored). */
function v1MigrationKey(t: ShapeTools, options: { apiId: boolean }): JsonSchema {
  return t.component(options.apiId ? "V1MigrationKeyWithApi" : "V1MigrationKey", () => {
    const generated = t.inline(MigrateKeyDataSchema, "request");
    const { hash: _hash, hashVariant: _variant, apiId, externalId, ...v1 } = (v1KeyFields(generated, t).properties ?? {}) as Record<string, JsonSchema>;
    const fields = (generated.properties ?? {}) as Record<string, JsonSchema>;
    return {
      ...generated,
      properties: {
        ...v1,
        externalId: fields.externalId,
        ...(options.apiId && { apiId }),
        prefix: { type: "string", maxLength: 8, description: "Accepted and ignored: `start` shows the key." },
        hash: {
          type: "object",
          properties: { value: { type: "string" }, variant: { type: "string", enum: ["sha256_base64", "sha256_hex"] } },
          required: ["value", "variant"],
        },
      },
      required: options.apiId ? ["apiId"] : [],
      anyOf: [{ required: ["hash"] }, { required: ["plaintext"] }],
    };
  });
}

/**
 * The v1 migration routes (v1-migrations-dialect.ts): createKeys takes a bare array of keys, each naming its api,
 * and answers the new ids in order; enqueueKeys takes `{migrationId, apiId, keys}` and answers 202 with the job id.
 */
export const v1MigrationShapes: Record<string, RouteShape> = {
  "/v1/migrations.createKeys": {
    request: (_, t) => ({ type: "array", minItems: 1, maxItems: MAX_KEYS, items: v1MigrationKey(t, { apiId: true }) }),
    response: () => ({
      type: "object", properties: { keyIds: { type: "array", items: { type: "string" } } }, required: ["keyIds"],
    }),
  },
  "/v1/migrations.enqueueKeys": {
    request: (generated, t) => ({
      ...generated,
      properties: {
        ...(generated.properties as Record<string, JsonSchema>),
        migrationId: { type: "string", description: "Accepted as Unkey v1 took it; each key's `hash.variant` says how it is encoded." },
        keys: { type: "array", minItems: 1, maxItems: MAX_KEYS, items: v1MigrationKey(t, { apiId: false }) },
      },
    }),
    status: 202,
  },
};
