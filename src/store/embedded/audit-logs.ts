import { auditMatches } from "../audit/audit-filters.js";
import type { AuditLogStore, AuditRecord } from "../ports/audit.js";
import type { CollectionSpec, Journal } from "./journal.js";

export const AUDIT_LOGS = "audit_logs";

/** Audit records by workspace, scanned in id (= time) order. */
export const auditLogsCollection: CollectionSpec = { indexes: { workspace: (d) => d.workspaceId } };

/**
 * The embedded audit log lives in the document journal, so a record can ride in the same commit as the change it
 * describes. `journal` is wrapped: while `inCommit` runs its write, the first commit that write makes
 * (synchronously: the embedded ports commit before they first await) also inserts the records. JavaScript runs
 * one call at a time, so no other request's commit can take the record in between.
 */
export function auditingJournal(journal: Journal): { journal: Journal; auditLogs: AuditLogStore } {
  let pending: AuditRecord[] | undefined;
  let written = 0;
  const wrapped: Journal = {
    ...journal,
    commit(mutations) {
      if (pending === undefined) return journal.commit(mutations);
      const records = pending;
      pending = undefined;
      const inserts = records.map((doc) => ({ op: "insert" as const, collection: AUDIT_LOGS, doc }));
      return journal.commit([...mutations, ...inserts]).then(() => void (written += records.length));
    },
  };
  const auditLogs: AuditLogStore = {
    inCommit(records, write) {
      pending = records;
      let result: ReturnType<typeof write>;
      try {
        result = write();
      } catch (error) {
        result = Promise.reject(error);
      }
      const taken = pending === undefined;
      pending = undefined;
      return { result, taken: () => taken };
    },
    async append(record) {
      await journal.commit([{ op: "insert", collection: AUDIT_LOGS, doc: record }]);
      written += 1;
    },
    async appendMany(records) {
      if (records.length === 0) return;
      await journal.commit(records.map((doc) => ({ op: "insert" as const, collection: AUDIT_LOGS, doc })));
      written += records.length;
    },
    async list(query, page) {
      return journal.scan<AuditRecord>(AUDIT_LOGS, {
        index: { name: "workspace", value: query.workspaceId },
        after: page.after,
        descending: query.newestFirst,
        limit: page.limit,
        filter: (record) => auditMatches(record, query),
      });
    },
    since: async (after, limit) => journal.scan<AuditRecord>(AUDIT_LOGS, { after, limit }),
    stats: () => ({ written, queued: 0, failedWrites: 0, dropped: 0 }),
    close: async () => {},
  };
  return { journal: wrapped, auditLogs };
}
