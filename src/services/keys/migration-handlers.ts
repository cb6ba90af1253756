import { create } from "@bufbuild/protobuf";
import { MigrateKeyDataSchema, type KeysService, type MigrateKeyData } from "../../../gen/keyward/v1/keys_pb.js";
import { importedPlaintext } from "../../domain/import-hash.js";
import { encryptKey, type EncryptedKey } from "../../domain/key-encryption.js";
import { KeywardError, notFound } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { MigrationJobRecord } from "../../store/ports/migrations.js";
import { authorize, type ServiceHandlers } from "../context.js";
import { createKeyImporter } from "./import-keys.js";
import type { KeysDeps } from "./key-context.js";
import { keysToJson, type MigrationScheduler } from "./migration-runner.js";

type Handlers = ServiceHandlers<typeof KeysService>;

/**
 * keys.migrateKeys (and v1 migrations.createKeys), keys.enqueueMigration (v1 migrations.enqueueKeys) and
 * keys.getMigration: imports now, imports queued as durable jobs, and a job's progress. Without `migrations` (no
 * runner, e.g. a CLI process) a queued import is FAILED_PRECONDITION, as Unkey answers when its queue is off.
 */
export function createMigrationHandlers(
  deps: KeysDeps & { migrations?: MigrationScheduler },
): Pick<Handlers, "migrateKeys" | "enqueueMigration" | "getMigration"> {
  const importer = createKeyImporter(deps);
  return {
    async migrateKeys(request, { principal }) {
      const result = await importer.importKeys(principal, request);
      return {
        migrated: result.migrated.map(({ hash, keyId }) => ({ hash, keyId })),
        failed: result.failures.map((f) => f.hash),
        failures: result.failures,
      };
    },

    async enqueueMigration(request, { principal, requestId }) {
      if (!deps.migrations) throw new KeywardError("precondition", "Queued migrations are not enabled in this process.");
      // Everything the import will check, checked now: a queued job never fails for input the call could refuse.
      await importer.checkImport(principal, request);
      const now = deps.clock.now();
      const keyIds = request.keys.map(() => newId("key", now, deps.randomBytes));
      const { keys, encrypted } = await withoutPlaintext(deps, principal.workspaceId, request, keyIds);
      const job: MigrationJobRecord = {
        id: newId("mig", now, deps.randomBytes),
        workspaceId: principal.workspaceId,
        apiId: request.apiId,
        actor: { rootKeyId: principal.rootKeyId, permissions: [...principal.permissions] },
        requestId,
        migrationId: request.migrationId,
        keys: keysToJson(keys),
        keyIds,
        ...(encrypted.some((e) => e !== null) && { encrypted }),
        state: "queued",
        processed: 0,
        outcomes: [],
        createdAt: now,
      };
      // Stored (durably) before the answer; only then handed to the runner.
      await deps.documents.migrationJobs.insert(job);
      deps.migrations.schedule(job);
      return { jobId: job.id };
    },

    async getMigration(request, { principal }) {
      const job = await deps.documents.migrationJobs.get(principal.workspaceId, request.jobId);
      if (!job) throw notFound(`The migration ${request.jobId} does not exist.`);
      authorize(principal, { resourceType: "api", action: "read_key", resourceId: job.apiId });
      return {
        jobId: job.id,
        apiId: job.apiId,
        state: job.state,
        total: job.keys.length,
        processed: job.processed,
        migrated: job.outcomes.filter((o) => o.keyId !== undefined).map((o) => ({ hash: o.hash, keyId: o.keyId })),
        failures: job.outcomes.filter((o) => o.error !== undefined).map((o) => ({ hash: o.hash, error: o.error, index: o.index })),
        createdAt: BigInt(job.createdAt),
        finishedAt: job.finishedAt === undefined ? undefined : BigInt(job.finishedAt),
      };
    },
  };
}

/**
 * A queued job's keys as they are stored: a plaintext key becomes its hash (sha256_base64) and `start`, and, when its
 * api stores recoverable keys and an encryption key is configured, its secret encrypted under its pinned id. No
 * plaintext is ever written to the job.
 */
async function withoutPlaintext(
  deps: KeysDeps, workspaceId: string, request: { apiId: string; keys: readonly MigrateKeyData[] }, keyIds: readonly string[],
): Promise<{ keys: MigrateKeyData[]; encrypted: (EncryptedKey | null)[] }> {
  const encrypted: (EncryptedKey | null)[] = [];
  const keys: MigrateKeyData[] = [];
  for (const [i, key] of request.keys.entries()) {
    if (key.plaintext === undefined) {
      keys.push(key);
      encrypted.push(null);
      continue;
    }
    const { hash, start } = importedPlaintext(key.plaintext);
    const api = await deps.documents.apis.get(workspaceId, key.apiId ?? request.apiId);
    encrypted.push(api?.storeEncryptedKeys && deps.encryptionKey ? encryptKey(deps.encryptionKey, key.plaintext, keyIds[i]) : null);
    const { plaintext: _plaintext, ...rest } = key;
    keys.push(create(MigrateKeyDataSchema, { ...rest, hash, hashVariant: "sha256_base64", start: key.start ?? start }));
  }
  return { keys, encrypted };
}
