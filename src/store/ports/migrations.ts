/** One key's outcome in a queued import: imported under `keyId`, or failed with `error`. */
export interface MigrationOutcome {
  index: number;
  hash: string;
  keyId?: string;
  error?: string;
}

/**
 * A queued import (v1 migrations.enqueueKeys): stored before the call is answered, worked through in slices by the
 * server in the background, and resumed after a restart. Each key's id is chosen when the job is stored, so a slice
 * interrupted after its keys were written finds them under those ids and counts them once.
 */
export interface MigrationJobRecord {
  id: string;
  workspaceId: string;
  apiId: string;
  /** The enqueuing root key and its permissions then: the job imports with exactly those rights. */
  actor: { rootKeyId: string; permissions: string[] };
  requestId: string;
  /** The hashes' encoding, as MigrateKeysRequest.migration_id. */
  migrationId: string;
  /** The keys as MigrateKeyData proto JSON. */
  keys: unknown[];
  /** The id each key gets, by position. */
  keyIds: string[];
  /**
   * By position, a queued plaintext key's secret encrypted under its id (its api stores recoverable keys), else null.
   * The job holds no plaintext: a plaintext key is queued as its hash, this, and its `start`.
   */
  encrypted?: ({ iv: string; ciphertext: string; tag: string } | null)[];
  state: "queued" | "running" | "done";
  /** Keys processed so far (the first `processed` of `keys`); each has its outcome in `outcomes`. */
  processed: number;
  outcomes: MigrationOutcome[];
  createdAt: number;
  updatedAt?: number;
  finishedAt?: number;
  /** The runner working the job, and until when (MigrationJobStore.claim); absent until one first claims it. */
  lease?: JobLease;
}

/**
 * A runner's hold on a job: instances sharing a store (MongoDB) each work a different job, and a job whose runner
 * died is taken over once its lease runs out. The runner renews it with every slice's progress.
 */
export interface JobLease {
  /** The runner's id: one per process, or one per data directory for a store a single process holds (embedded). */
  owner: string;
  /** Unix ms; past it another runner may claim the job. */
  until: number;
}

/** An unfinished job as `unfinished` lists it: without its keys, which only the runner that claims it reads. */
export type UnfinishedJob = Pick<MigrationJobRecord, "id" | "lease">;

/** Queued imports. */
export interface MigrationJobStore {
  insert(job: MigrationJobRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<MigrationJobRecord | undefined>;
  /** Jobs not done yet, oldest first: what a runner may claim. */
  unfinished(): Promise<UnfinishedJob[]>;
  /**
   * Gives job `id` to `lease.owner` until `lease.until`, unless it is done, gone, or leased to another owner past
   * `now`; answers the job as claimed (with `lease`), or undefined. Atomic: of runners claiming at once, one wins.
   */
  claim(id: string, lease: JobLease, now: number): Promise<MigrationJobRecord | undefined>;
  /**
   * Stores a job's progress, the whole record replacing the stored one, while `job.lease.owner` still holds it:
   * false, and nothing written, once another runner has claimed the job.
   */
  saveProgress(job: MigrationJobRecord & { lease: JobLease }): Promise<boolean>;
}
