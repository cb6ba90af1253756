import { leaseFreeFor } from "../../domain/job-lease.js";
import type { MigrationJobRecord, MigrationJobStore } from "../ports/migrations.js";
import type { CollectionSpec, Journal } from "./journal.js";

const JOBS = "migration_jobs";

/** The `migration_jobs` collection; jobs not done yet stay in the `unfinished` index until they are. */
export const migrationJobsCollection: CollectionSpec = {
  indexes: { unfinished: (d) => (d.state === "done" ? undefined : "1") },
};

/**
 * MigrationJobStore over a journal holding `migrationJobsCollection` under the name "migration_jobs". Each claim and
 * save reads and commits in one synchronous stretch, which the journal makes atomic.
 */
export function migrationJobStoreOver(journal: Journal): MigrationJobStore {
  const put = (doc: MigrationJobRecord) => journal.commit([{ op: "put", collection: JOBS, doc }]);
  return {
    insert: (job) => journal.commit([{ op: "insert", collection: JOBS, doc: job }]),
    async get(workspaceId, id) {
      const job = journal.get<MigrationJobRecord>(JOBS, id);
      return job && job.workspaceId === workspaceId ? job : undefined;
    },
    unfinished: async () =>
      journal.scan<MigrationJobRecord>(JOBS, { index: { name: "unfinished", value: "1" } }).map(({ id, lease }) => ({ id, ...(lease && { lease }) })),
    async claim(id, lease, now) {
      const job = journal.get<MigrationJobRecord>(JOBS, id);
      if (!job || job.state === "done" || !leaseFreeFor(job.lease, lease.owner, now)) return undefined;
      const claimed = { ...job, lease };
      await put(claimed);
      return claimed;
    },
    async saveProgress(job) {
      if (journal.get<MigrationJobRecord>(JOBS, job.id)?.lease?.owner !== job.lease.owner) return false;
      await put(job);
      return true;
    },
  };
}
