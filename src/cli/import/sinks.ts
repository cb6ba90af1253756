import { MigrateKeysRequestSchema } from "../../../gen/keyward/v1/keys_pb.js";
import { KeywardError } from "../../domain/errors.js";
import type { Principal } from "../../services/context.js";
import type { KeyImporter } from "../../services/keys/import-keys.js";
import { decodeCheckedJson } from "../../transport/json-check.js";
import { checkRequest } from "../../transport/pipeline.js";
import type { ImportHashVariant } from "./import-args.js";
import type { BatchResult, ImportSink } from "./import-file.js";
import { keyIndexesNamed } from "./key-lines.js";

/** The import cannot go on (the server refused the root key, the api is unknown, the store failed). */
export class ImportStoppedError extends Error {
  override name = "ImportStoppedError";
}

interface Target {
  apiId: string;
  hashVariant: ImportHashVariant;
}

/**
 * Batches through a running server's `POST /v2/keys.migrateKeys`, authenticated by `rootKey`: the server checks,
 * audits and imports exactly as for any client. A 400 names the keys it refused; any other answer but 200 stops.
 */
export function serverSink(options: Target & { url: string; rootKey: string }): ImportSink {
  return {
    async submit(keys) {
      let response: Response;
      try {
        response = await fetch(`${options.url}/v2/keys.migrateKeys`, {
          method: "POST",
          headers: { authorization: `Bearer ${options.rootKey}`, "content-type": "application/json" },
          body: JSON.stringify({ migrationId: options.hashVariant, apiId: options.apiId, keys }),
        });
      } catch (error) {
        throw new ImportStoppedError(`cannot reach ${options.url}: ${(error as Error).message}`);
      }
      const body = (await response.json().catch(() => undefined)) as Record<string, any> | undefined;
      if (response.status === 200 && body?.data) {
        const failures = (body.data.failures ?? []) as { index: number; error: string }[];
        return { imported: body.data.migrated.length, failed: new Map(failures.map((f) => [f.index, f.error])) };
      }
      const detail = body?.error?.detail ?? response.statusText;
      if (response.status === 400) {
        const errors = (body?.error?.errors ?? []) as { location: string; message: string }[];
        return { refused: detail, named: keyIndexesNamed(errors) };
      }
      throw new ImportStoppedError(`the server answered ${response.status}: ${detail}`);
    },
  };
}

/**
 * Batches straight into the store through the import service, held to the same decoding and validation as the
 * API's (the REST dialect's JSON check, the proto's rules), as `principal`.
 */
export function storeSink(options: Target & { importer: KeyImporter; principal: Principal }): ImportSink {
  return {
    async submit(keys): Promise<BatchResult> {
      try {
        const request = decodeCheckedJson(
          MigrateKeysRequestSchema,
          { migrationId: options.hashVariant, apiId: options.apiId, keys },
          { allowUnknown: false, prefix: "", dialect: "rest", name: (location) => location || "body" },
        );
        checkRequest(MigrateKeysRequestSchema, request);
        const result = await options.importer.importKeys(options.principal, request);
        return { imported: result.migrated.length, failed: new Map(result.failures.map((f) => [f.index, f.error])) };
      } catch (error) {
        if (error instanceof KeywardError && error.kind === "invalid") {
          return { refused: error.message, named: keyIndexesNamed(error.violations) };
        }
        if (error instanceof KeywardError) throw new ImportStoppedError(error.message);
        throw error;
      }
    },
  };
}
