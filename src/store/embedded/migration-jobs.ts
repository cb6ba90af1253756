import type { MigrationJobRecord, MigrationJobStore } from "../ports/migrations.js";
import type { CollectionSpec, Journal } from "./journal.js";

const JOBS = "migration_jobs";

/** The `migration_jobs` collection; jobs not done yet stay in the `unfinished` index until they are. */
export const migrationJobsCollection: CollectionSpec = {
  indexes: { unfinished: (d) => (d.state === "done" ? undefined : "1") },
};

/** MigrationJobStore over a journal holding `migrationJobsCollection` under the name "migration_jobs". */
export function migrationJobStoreOver(journal: Journal): MigrationJobStore {
  return {
    insert: (job) => journal.commit([{ op: "insert", collection: JOBS, doc: job }]),
    async get(workspaceId, id) {
      const job = journal.get<MigrationJobRecord>(JOBS, id);
      return job && job.workspaceId === workspaceId ? job : undefined;
    },
    unfinished: async () => journal.scan<MigrationJobRecord>(JOBS, { index: { name: "unfinished", value: "1" } }),
    saveProgress: (job) => journal.commit([{ op: "put", collection: JOBS, doc: job }]),
  };
}
