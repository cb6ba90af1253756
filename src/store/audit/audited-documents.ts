import type { AuditLogStore, AuditRecord, AuditResource, DocumentStore } from "../ports.js";

/** Who is changing what, for every record one operation (or CLI command) writes. */
export interface AuditContext {
  /** Absent: the workspace the change creates (the CLI's `workspace create` has no other). */
  workspaceId?: string;
  actor: string;
  action: string;
  requestId?: string;
  remoteAddress?: string;
  userAgent?: string;
  /** Mints a record id and time: `log_...` ids sort by time. */
  newRecord(): { id: string; time: number };
  /**
   * The call's commit gate (its deadline), passed before every write: a write it refuses is not attempted and records
   * nothing. Absent: the call has no deadline (the CLI's never do).
   */
  gate?: { beginCommit(): void };
}

type Resources = (args: any[]) => AuditResource[];
const byRecord = (type: string): Resources => ([record]) => [{ type, id: record.id }];
const byId = (type: string): Resources => ([, id]) => [{ type, id }];

/**
 * Every write of the DocumentStore port and the resources it touches. A write method missing here would change
 * documents without a record: audited-documents.test.ts checks this table against the port's write methods.
 */
export const AUDITED_WRITES: Record<string, Record<string, Resources>> = {
  rootKeys: { insert: byRecord("rootKey"), markDeleted: byId("rootKey") },
  apis: { insert: byRecord("api"), markDeleted: byId("api") },
  keys: {
    insert: byRecord("key"),
    // One record per key (see PER_RECORD_WRITES); this flat list is what they name together.
    insertMany: ([records]) => records.map((r: { id: string }) => ({ type: "key", id: r.id })),
    // One write, one record: a replace that links a new identity names it too.
    replace: ([record, options]) => [{ type: "key", id: record.id }, ...(options?.newIdentity ? [{ type: "identity", id: options.newIdentity.id }] : [])],
    markDeleted: byId("key"),
    erase: byId("key"),
  },
  identities: { insert: byRecord("identity"), replace: byRecord("identity"), markDeleted: byId("identity") },
  ratelimitNamespaces: { insert: byRecord("ratelimitNamespace") },
  ratelimitOverrides: {
    set: ([record]) => [{ type: "ratelimitOverride", id: record.id }, { type: "ratelimitNamespace", id: record.namespaceId }],
    delete: ([, namespaceId, identifier]) => [{ type: "ratelimitNamespace", id: namespaceId }, { type: "ratelimitOverride", id: identifier }],
  },
  permissions: { insert: ([records]) => records.map((r: { id: string }) => ({ type: "permission", id: r.id })), delete: byId("permission") },
  roles: { insert: byRecord("role"), replace: byRecord("role"), delete: byId("role") },
  migrationJobs: { insert: byRecord("migration"), saveProgress: byRecord("migration") },
};

/**
 * Writes of many documents that record one audit record per document, all in the write's commit (an import of a
 * thousand keys is a thousand `key.create` records, as a thousand createKey calls would be).
 */
export const PER_RECORD_WRITES: Record<string, Record<string, (args: any[]) => AuditResource[][]>> = {
  keys: { insertMany: ([records]) => records.map((r: { id: string; apiId: string }) => [{ type: "key", id: r.id }, { type: "api", id: r.apiId }]) },
};

const WORKSPACE_WRITE: Resources = ([workspace, rootKey]) => [{ type: "workspace", id: workspace.id }, { type: "rootKey", id: rootKey.id }];

/** What one audited scope did: whether any record was written, for the caller's fallback. */
export interface AuditScope {
  documents: DocumentStore;
  /** Records written so far by this scope's writes. */
  recorded(): number;
  /** Writes one record for a change the document store did not see (e.g. credits, which live in the counters). */
  record(resources: AuditResource[]): Promise<void>;
}

/**
 * A view of `documents` whose every write first passes the call's commit gate and also writes an audit record
 * (reads pass through): inside the same commit where the store offers one (embedded), else right after the write
 * succeeded (AuditLogStore.append). A write that changed nothing (a soft delete answering false) or failed records
 * nothing.
 */
export function auditedDocuments(documents: DocumentStore, auditLogs: AuditLogStore, context: AuditContext): AuditScope {
  let recorded = 0;
  const recordOf = (resources: AuditResource[]): AuditRecord => ({
    ...context.newRecord(),
    workspaceId: context.workspaceId ?? resources.find((r) => r.type === "workspace")?.id ?? "",
    actor: context.actor,
    action: context.action,
    resources,
    ...(context.requestId !== undefined && { requestId: context.requestId }),
    ...(context.remoteAddress !== undefined && { remoteAddress: context.remoteAddress }),
    ...(context.userAgent !== undefined && { userAgent: context.userAgent }),
  });

  async function audited<T>(resources: AuditResource[], write: () => Promise<T>): Promise<T> {
    context.gate?.beginCommit();
    const record = recordOf(resources);
    const { result, taken } = auditLogs.inCommit(record, write);
    const value = await result;
    if (taken()) recorded += 1;
    else if (value !== false) {
      await auditLogs.append(record);
      recorded += 1;
    }
    return value;
  }

  async function auditedEach<T>(each: AuditResource[][], write: () => Promise<T>): Promise<T> {
    context.gate?.beginCommit();
    const records = each.map(recordOf);
    const { result, taken } = auditLogs.inCommit(records, write);
    const value = await result;
    if (!taken()) await auditLogs.appendMany(records);
    recorded += records.length;
    return value;
  }

  const view: Record<string, unknown> = Object.create(documents);
  for (const [store, writes] of Object.entries(AUDITED_WRITES)) {
    const target = documents[store as keyof DocumentStore] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const sub: Record<string, unknown> = Object.create(target);
    for (const [method, resources] of Object.entries(writes)) {
      const perRecord = PER_RECORD_WRITES[store]?.[method];
      sub[method] = perRecord
        ? (...args: unknown[]) => auditedEach(perRecord(args), () => target[method](...args))
        : (...args: unknown[]) => audited(resources(args), () => target[method](...args));
    }
    view[store] = sub;
  }
  view.createWorkspace = (...args: unknown[]) =>
    audited(WORKSPACE_WRITE(args), () => (documents.createWorkspace as (...a: unknown[]) => Promise<void>)(...args));

  return {
    documents: view as unknown as DocumentStore,
    recorded: () => recorded,
    async record(resources) {
      await auditLogs.append(recordOf(resources));
      recorded += 1;
    },
  };
}
