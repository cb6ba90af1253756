import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { MigrateKeyDataSchema, type MigrateKeyData } from "../../../gen/keyward/v1/keys_pb.js";
import type { Clock } from "../../domain/clock.js";
import { KeywardError } from "../../domain/errors.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { MigrationJobRecord } from "../../store/ports/migrations.js";
import type { Principal } from "../context.js";
import type { KeyImporter } from "./import-keys.js";

/** Keys imported per slice of a queued job; the job's progress is stored after each. */
export const JOB_SLICE = 100;

/** How long a slice that failed for want of a store waits before it is tried again. */
const RETRY_MS = 1000;

/** What a queued job's keys are stored as, and read back from. */
export const keysToJson = (keys: readonly MigrateKeyData[]): unknown[] => keys.map((k) => toJson(MigrateKeyDataSchema, k));
const keysFromJson = (keys: readonly unknown[]): MigrateKeyData[] => keys.map((k) => fromJson(MigrateKeyDataSchema, k as JsonValue));

/** The root key a job acts for, with the permissions it held when the job was stored. */
export const principalOf = (job: MigrationJobRecord): Principal => ({
  workspaceId: job.workspaceId, rootKeyId: job.actor.rootKeyId, permissions: new Set(job.actor.permissions),
});

/** Where queued jobs go once stored; the keys service hands each new job to it. */
export interface MigrationScheduler {
  schedule(job: MigrationJobRecord): void;
}

/**
 * Works through queued imports in the background, one job at a time, in slices of JOB_SLICE keys: each slice is
 * imported with the job's pinned key ids (createKeyImporter), then the job's progress is stored. A process killed
 * anywhere in between resumes (`resume`, at start) from the last stored progress, and the slice it was in finds the
 * keys it had written under their pinned ids, so every key is imported exactly once. A slice refused for good (its
 * api deleted, the root key's rights gone) fails its keys with the reason and the job moves on; a store outage is
 * retried until the runner is stopped.
 */
export function createMigrationRunner(deps: {
  documents: DocumentStore;
  clock: Clock;
  /** The importer a job's slices run through: over audited documents naming the job's root key and request id. */
  importerFor: (job: MigrationJobRecord, principal: Principal) => KeyImporter;
  log?: (line: string) => void;
}) {
  const log = deps.log ?? ((line: string) => console.error(line));
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  let resuming: Promise<void> = Promise.resolve();

  async function run(job: MigrationJobRecord): Promise<void> {
    const principal = principalOf(job);
    const importer = deps.importerFor(job, principal);
    const keys = keysFromJson(job.keys);
    while (!stopped && job.processed < keys.length) {
      const offset = job.processed;
      const slice = keys.slice(offset, offset + JOB_SLICE);
      const request = { migrationId: job.migrationId, apiId: job.apiId, keys: slice };
      let outcomes: MigrationJobRecord["outcomes"];
      try {
        const result = await importer.importKeys(principal, request, {
          keyIds: job.keyIds.slice(offset, offset + slice.length), encrypted: job.encrypted?.slice(offset, offset + slice.length), offset,
        });
        outcomes = [...result.migrated, ...result.failures].sort((a, b) => a.index - b.index);
      } catch (error) {
        if (!(error instanceof KeywardError) || error.kind === "unavailable") {
          log(`migration ${job.id}: slice at ${offset} failed (${error instanceof Error ? error.message : String(error)}); retrying`);
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        outcomes = slice.map((key, i) => ({ index: offset + i, hash: key.hash, error: error.message }));
      }
      const now = deps.clock.now();
      job = {
        ...job, state: "running", processed: offset + slice.length, outcomes: [...job.outcomes, ...outcomes], updatedAt: now,
      };
      if (job.processed >= keys.length) job = { ...job, state: "done", finishedAt: now };
      await deps.documents.migrationJobs.saveProgress(job);
    }
  }

  const runner = {
    /** Queues a stored job behind the ones already queued. */
    schedule(job: MigrationJobRecord): void {
      chain = chain.then(() => run(job)).catch((error: unknown) => {
        log(`migration ${job.id}: stopped (${error instanceof Error ? error.message : String(error)}); it resumes at the next start`);
      });
    },
    /** Queues every job a previous process left unfinished. */
    resume(): Promise<void> {
      resuming = (async () => {
        for (const job of await deps.documents.migrationJobs.unfinished()) runner.schedule(job);
      })();
      return resuming;
    },
    /** Resolves once every queued job, those a `resume` finds included, has been worked through (or the runner stopped). */
    async idle(): Promise<void> {
      await resuming.catch(() => undefined);
      let seen: Promise<void>;
      do {
        seen = chain;
        await seen;
      } while (seen !== chain);
    },
    /** Stops after the slice in progress; what is left resumes at the next start. */
    stop(): Promise<void> {
      stopped = true;
      return chain;
    },
  };
  return runner;
}
