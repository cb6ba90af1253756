import { invalid } from "../../domain/errors.js";
import type { DialectMapping } from "./dialect-mapping.js";

type Json = Record<string, any>;

/** Unkey v1's limit of keys per migrations.createKeys / enqueueKeys request. */
export const V1_MIGRATION_MAX_KEYS = 100;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Unkey v1's hash variant when a request names none (v1 keys name theirs in `hash.variant`). */
const DEFAULT_VARIANT = "sha256_base64";

function checkedCount(keys: unknown[], location: string): void {
  if (keys.length > V1_MIGRATION_MAX_KEYS) {
    throw invalid(`At most ${V1_MIGRATION_MAX_KEYS} keys per request; this one has ${keys.length}. Nothing was imported.`, [
      { location, message: `at most ${V1_MIGRATION_MAX_KEYS} items` },
    ]);
  }
}

/**
 * The v1 migration routes onto KeysService.MigrateKeys / EnqueueMigration: v1 key fields through the same mapping
 * as v1 createKey (`keyFields`: ownerId, remaining/refill, ratelimit), `hash: {value, variant}` onto `hash` and
 * `hashVariant`, and createKeys' bare array onto `keys`. v1 createKeys is all or nothing (one transaction at Unkey,
 * CONFLICT when a hash is taken) and answers `{keyIds}` in request order; enqueueKeys answers 202 with the job id.
 */
export function v1MigrationMappings(keyFields: (input: unknown, options: { update: boolean }) => unknown): Record<string, DialectMapping> {
  const v1Key = (input: unknown): unknown => {
    if (!isObject(input)) return input;
    const { hash, prefix: _prefix, ...rest } = input;
    const out = keyFields(rest, { update: false }) as Json;
    // v1 refuses missing roles and permissions on createKey; an import creates them, as v2 does.
    delete out.createMissing;
    if (isObject(hash)) {
      out.hash = hash.value;
      out.hashVariant = hash.variant;
    } else if (hash !== undefined) out.hash = hash;
    return out;
  };
  return {
    "/v1/migrations.createKeys": {
      request(input) {
        if (!Array.isArray(input)) throw invalid("The body must be an array of keys.", [{ location: "", message: "must be an array" }]);
        checkedCount(input, "");
        const apiId = isObject(input[0]) ? input[0].apiId : undefined;
        return { migrationId: DEFAULT_VARIANT, apiId, allOrNothing: true, keys: input.map(v1Key) };
      },
      response: (json) => ({ keyIds: ((json.migrated ?? []) as Json[]).map((m) => m.keyId) }),
    },
    "/v1/migrations.enqueueKeys": {
      request(input) {
        if (!isObject(input) || !Array.isArray(input.keys)) return input;
        checkedCount(input.keys, "keys");
        return { ...input, migrationId: DEFAULT_VARIANT, keys: input.keys.map(v1Key) };
      },
      status: 202,
    },
  };
}
