import type { Db } from "mongodb";
import { auditFilter } from "../audit/audit-filters.js";
import type { AuditLogStore, AuditRecord } from "../ports/audit.js";

export const AUDIT_LOGS_COLLECTION = "audit_logs";
/** Most records the outbox holds while MongoDB refuses writes; beyond it the oldest are dropped, counted and logged. */
const MAX_QUEUED = 100_000;
const RETRY_MS = 1000;

type AuditDocument = Omit<AuditRecord, "id"> & { _id: string };

/**
 * The MongoDB audit log. The document adapter's writes are single-document operations without a session, so a
 * record cannot share their transaction; it is inserted right after the change instead (`append`, awaited by the
 * operation). When that insert fails, the record goes to an in-memory outbox retried every second until it is
 * stored: `stats().queued` is the metric to alert on, and records are only ever lost when the outbox overflows
 * (counted in `dropped`, logged) or the process dies with records queued. Inserts are idempotent by `_id`.
 */
export async function createMongoAuditLogStore(options: { db: Db; log?: (line: string) => void }): Promise<AuditLogStore> {
  const collection = options.db.collection<AuditDocument>(AUDIT_LOGS_COLLECTION);
  await collection.createIndexes([
    { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
    { name: "workspace_resources", key: { workspaceId: 1, "resources.type": 1, "resources.id": 1 } },
  ]);
  const log = options.log ?? ((line: string) => console.error(line));
  const outbox: AuditRecord[] = [];
  const stats = { written: 0, failedWrites: 0, dropped: 0, lastError: undefined as string | undefined };

  const toDocument = ({ id, ...rest }: AuditRecord): AuditDocument => ({ _id: id, ...rest });
  async function insert(record: AuditRecord): Promise<void> {
    try {
      await collection.insertOne(toDocument(record));
    } catch (error) {
      // A retry of a record that did reach the server is a duplicate _id: it is stored.
      if ((error as { code?: number }).code !== 11000) throw error;
    }
    stats.written += 1;
  }
  function queue(record: AuditRecord, error: unknown): void {
    stats.failedWrites += 1;
    stats.lastError = error instanceof Error ? error.message : String(error);
    outbox.push(record);
    if (outbox.length > MAX_QUEUED) {
      outbox.shift();
      stats.dropped += 1;
      log(`audit log: outbox full, dropped the oldest record (${stats.dropped} dropped so far)`);
    }
  }
  let draining = false;
  async function drain(): Promise<void> {
    if (draining) return;
    draining = true;
    try {
      while (outbox.length > 0) {
        await insert(outbox[0]);
        outbox.shift();
      }
    } catch (error) {
      stats.failedWrites += 1;
      stats.lastError = error instanceof Error ? error.message : String(error);
    } finally {
      draining = false;
    }
  }
  const timer = setInterval(() => void drain(), RETRY_MS);
  timer.unref();

  return {
    inCommit: (_records, write) => ({ result: write(), taken: () => false }),
    async append(record) {
      if (outbox.length > 0) return queue(record, new Error("earlier records are still queued")); // keep order
      await insert(record).catch((error: unknown) => queue(record, error));
    },
    async appendMany(records) {
      if (records.length === 0) return;
      if (outbox.length > 0) return void records.forEach((record) => queue(record, new Error("earlier records are still queued")));
      try {
        await collection.insertMany(records.map(toDocument), { ordered: true });
        stats.written += records.length;
      } catch (error) {
        // Ordered: those before the first refused one are stored; the rest are retried (a duplicate _id is stored).
        const firstWriteError = (error as { writeErrors?: { index?: number }[] | { index?: number } }).writeErrors;
        const index = (Array.isArray(firstWriteError) ? firstWriteError[0] : firstWriteError)?.index ?? 0;
        stats.written += index;
        for (const record of records.slice(index)) await insert(record).catch((retry: unknown) => queue(record, retry));
      }
    },
    async list(query, page) {
      const found = await collection.find(auditFilter(query, page.after), { sort: { _id: query.newestFirst ? -1 : 1 }, limit: page.limit }).toArray();
      return found.map(({ _id, ...rest }) => ({ id: _id, ...rest }) as AuditRecord);
    },
    async since(after, limit) {
      const filter = after === undefined ? {} : { _id: { $gt: after } };
      const found = await collection.find(filter, { sort: { _id: 1 }, limit }).toArray();
      return found.map(({ _id, ...rest }) => ({ id: _id, ...rest }) as AuditRecord);
    },
    stats: () => ({ ...stats, queued: outbox.length }),
    async close() {
      clearInterval(timer);
      await drain();
      if (outbox.length > 0) log(`audit log: ${outbox.length} records could not be written before shutdown`);
    },
  };
}
