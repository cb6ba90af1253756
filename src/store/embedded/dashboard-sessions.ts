import type { DashboardSessionRecord, DashboardSessionStore } from "../ports/dashboard-sessions.js";
import type { CollectionSpec, Journal } from "./journal.js";

export const dashboardSessionsCollection: CollectionSpec = { unique: { hash: (d) => d.hash } };

/** Dashboard sessions over the journal; a sign-out or an expiry sweep deletes them for good. */
export function dashboardSessionStoreOver(journal: Journal): DashboardSessionStore {
  const collection = "dashboard_sessions";
  return {
    insert: (record) => journal.commit([{ op: "insert", collection, doc: record }]),
    findByHash: async (hash) => journal.findUnique<DashboardSessionRecord>(collection, "hash", hash),
    async delete(hash) {
      // Read and commit in one synchronous stretch: two concurrent sign-outs cannot both report true.
      const found = journal.findUnique<DashboardSessionRecord>(collection, "hash", hash);
      if (!found) return false;
      await journal.commit([{ op: "delete", collection, id: found.id }]);
      return true;
    },
    async deleteExpired(now) {
      const expired = journal.scan<DashboardSessionRecord>(collection, { filter: (d) => d.expiresAt <= now });
      if (expired.length === 0) return 0;
      await journal.commit(expired.map((d) => ({ op: "delete" as const, collection, id: d.id })));
      return expired.length;
    },
  };
}
