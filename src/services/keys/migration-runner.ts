import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { MigrateKeyDataSchema, type MigrateKeyData } from "../../../gen/keyward/v1/keys_pb.js";
import type { Clock } from "../../domain/clock.js";
import { KeywardError } from "../../domain/errors.js";
import { leaseFreeFor } from "../../domain/job-lease.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { JobLease, MigrationJobRecord } from "../../store/ports/migrations.js";
import type { Principal } from "../context.js";
import type { KeyImporter } from "./import-keys.js";

/** Keys imported per slice of a queued job; the job's progress is stored after each. */
export const JOB_SLICE = 100;

/** How long a slice that failed for want of a store waits before it is tried again. */
const RETRY_MS = 1000;

/**
 * How long a claim holds a job: a runner that stops renewing it (its process died) loses the job to another then.
 * Leases are compared with each instance's own clock, so instances' clocks must agree to well within this.
 */
export const JOB_LEASE_MS = 30_000;

/** How often a runner looks for jobs no live runner holds: queued on another instance, or left by a dead one. */
export const ADOPT_EVERY_MS = 10_000;

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
 * anywhere in between resumes from the last stored progress, and the slice it was in finds the keys it had written
 * under their pinned ids, so every key is imported exactly once. A slice refused for good (its api deleted, the root
 * key's rights gone) fails its keys with the reason and the job moves on; a store outage is retried until the runner
 * is stopped.
 *
 * Runners sharing a store (instances over one MongoDB) never work the same job at once: a runner first claims the
 * job (a lease of JOB_LEASE_MS, renewed with every slice's progress) and stops when its progress is refused because
 * another runner claimed the job after its lease ran out. Every ADOPT_EVERY_MS, and at `resume`, a runner takes up the
 * unfinished jobs no live lease holds. A stopped runner gives its job's lease up, so another takes it up at once.
 */
export function createMigrationRunner(deps: {
  documents: DocumentStore;
  clock: Clock;
  /**
   * This runner's lease owner: unique per process where processes share the store; the same across restarts where
   * one process holds the store alone (embedded), so that a restart takes its jobs up again without waiting.
   */
  owner: string;
  /** The importer a job's slices run through: over audited documents naming the job's root key and request id. */
  importerFor: (job: MigrationJobRecord, principal: Principal) => KeyImporter;
  log?: (line: string) => void;
  /** JOB_LEASE_MS and ADOPT_EVERY_MS unless given (tests). */
  leaseMs?: number;
  adoptEveryMs?: number;
}) {
  const log = deps.log ?? ((line: string) => console.error(line));
  const { documents, clock, owner } = deps;
  const leaseMs = deps.leaseMs ?? JOB_LEASE_MS;
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  let resuming: Promise<void> = Promise.resolve();
  /** Jobs queued or running here. */
  const working = new Set<string>();
  let adoptTimer: NodeJS.Timeout | undefined;
  let adopting: Promise<void> | undefined;
  let adoptFailing = false;

  const leaseFrom = (now: number): JobLease => ({ owner, until: now + leaseMs });

  async function run(id: string): Promise<void> {
    if (stopped) return;
    const claimedAt = clock.now();
    let job = await documents.migrationJobs.claim(id, leaseFrom(claimedAt), claimedAt);
    if (!job) return; // done, or another live runner's
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
      const now = clock.now();
      const processed = offset + slice.length;
      const next: MigrationJobRecord & { lease: JobLease } = {
        ...job, state: processed >= keys.length ? "done" : "running", processed, outcomes: [...job.outcomes, ...outcomes],
        updatedAt: now, ...(processed >= keys.length && { finishedAt: now }), lease: leaseFrom(now),
      };
      if (!(await documents.migrationJobs.saveProgress(next))) {
        log(`migration ${id}: its lease ran out and another runner took it over; leaving it to that one`);
        return;
      }
      job = next;
    }
    // Stopped with work left: the lease is given up, for another instance to take the job up at once.
    if (job.state !== "done") await documents.migrationJobs.saveProgress({ ...job, lease: { owner, until: clock.now() } });
  }

  /** Queues the unfinished jobs no live lease of another runner holds. */
  async function adopt(): Promise<void> {
    const now = clock.now();
    for (const job of await documents.migrationJobs.unfinished()) {
      if (leaseFreeFor(job.lease, owner, now)) runner.schedule(job);
    }
  }

  function adoptNow(): void {
    adopting ??= adopt()
      .then(() => void (adoptFailing = false))
      .catch((error: unknown) => {
        // Once per outage: the next look comes in ADOPT_EVERY_MS anyway.
        if (!adoptFailing) log(`migrations: cannot look for queued imports (${error instanceof Error ? error.message : String(error)}); trying again`);
        adoptFailing = true;
      })
      .finally(() => (adopting = undefined));
  }

  const runner = {
    /** Queues a stored job behind the ones already queued, unless it is queued or running here already. */
    schedule(job: Pick<MigrationJobRecord, "id">): void {
      if (stopped || working.has(job.id)) return;
      working.add(job.id);
      chain = chain
        .then(() => run(job.id))
        .catch((error: unknown) => {
          log(`migration ${job.id}: stopped (${error instanceof Error ? error.message : String(error)}); tried again at the next look for queued imports`);
        })
        .finally(() => void working.delete(job.id));
    },
    /** Queues the unfinished jobs no other runner holds (those a previous process left included), and looks again every ADOPT_EVERY_MS. */
    resume(): Promise<void> {
      resuming = adopt();
      adoptTimer ??= setInterval(adoptNow, deps.adoptEveryMs ?? ADOPT_EVERY_MS);
      adoptTimer.unref();
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
    /** Stops after the slice in progress; what is left is taken up by another runner, or by this one's next start. */
    stop(): Promise<void> {
      stopped = true;
      clearInterval(adoptTimer);
      return chain;
    },
  };
  return runner;
}
