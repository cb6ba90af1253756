/** Pure pieces of the audit log shared by the adapters: matching a query, and the MongoDB filter of one. */
import type { Document } from "mongodb";
import type { AuditQuery, AuditRecord } from "../ports/audit.js";

/** Whether a record answers `query` (the in-memory adapters' filter; MongoDB's is `auditFilter`). */
export function auditMatches(record: AuditRecord, query: AuditQuery): boolean {
  return (
    record.workspaceId === query.workspaceId &&
    (query.start === undefined || record.time >= query.start) &&
    (query.end === undefined || record.time < query.end) &&
    (query.actor === undefined || record.actor === query.actor) &&
    (query.actions === undefined || query.actions.length === 0 || query.actions.includes(record.action)) &&
    (query.resourceType === undefined && query.resourceId === undefined ||
      record.resources.some((r) =>
        (query.resourceType === undefined || r.type === query.resourceType) && (query.resourceId === undefined || r.id === query.resourceId)))
  );
}

/**
 * The MongoDB filter of `query` after the id `after` (keyset pagination on `_id`, which is the record id): greater
 * ids, or smaller ones when newest first.
 */
export function auditFilter(query: AuditQuery, after?: string): Document {
  const filter: Document = { workspaceId: query.workspaceId };
  if (after !== undefined) filter._id = query.newestFirst ? { $lt: after } : { $gt: after };
  if (query.start !== undefined || query.end !== undefined) {
    filter.time = {
      ...(query.start !== undefined && { $gte: query.start }),
      ...(query.end !== undefined && { $lt: query.end }),
    };
  }
  if (query.actor !== undefined) filter.actor = query.actor;
  if (query.actions !== undefined && query.actions.length > 0) filter.action = { $in: [...query.actions] };
  if (query.resourceType !== undefined || query.resourceId !== undefined) {
    filter.resources = {
      $elemMatch: {
        ...(query.resourceType !== undefined && { type: query.resourceType }),
        ...(query.resourceId !== undefined && { id: query.resourceId }),
      },
    };
  }
  return filter;
}
