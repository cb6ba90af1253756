import type { AuditLogStore, AuditRecord, AuditResource } from "../ports/audit.js";
import type { DocumentStore } from "../ports/documents.js";

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

/** One record a write makes: its own action (absent: the call's), and the resources it names. */
export interface WriteRecord {
  action?: string;
  resources: AuditResource[];
}

type Records = (args: any[]) => WriteRecord[];
/** A document's creation and deletion are recorded as such (`<type>.create`, `<type>.delete`) whatever call made them. */
const created = (type: string): Records => ([record]) => [{ action: `${type}.create`, resources: [{ type, id: record.id }] }];
const deleted = (type: string): Records => ([, id]) => [{ action: `${type}.delete`, resources: [{ type, id }] }];
/** Any other change is recorded as the call's action: it says why the document changed (key.addRoles, key.reroll...). */
const changed = (type: string): Records => ([record]) => [{ resources: [{ type, id: record.id }] }];

/**
 * Every write of the DocumentStore port and the records it makes: one per document it creates, changes or deletes,
 * so a call that creates an identity, a permission and a role on demand beside its key writes identity.create,
 * permission.create, role.create and key.create, sharing the request id. A write method missing here would change
 * documents without a record: audited-documents.test.ts checks this table against the port's write methods.
 */
export const AUDITED_WRITES: Record<string, Record<string, Records>> = {
  rootKeys: { insert: created("rootKey"), markDeleted: deleted("rootKey") },
  apis: { insert: created("api"), replace: changed("api"), markDeleted: deleted("api") },
  keys: {
    insert: created("key"),
    // An import's many keys in one write: a key.create record for each, all in that write's commit.
    insertMany: ([records]) =>
      records.map((r: { id: string; apiId: string }) => ({ action: "key.create", resources: [{ type: "key", id: r.id }, { type: "api", id: r.apiId }] })),
    // One atomic write, two documents: the key changed, and the identity it now links to created.
    replace: ([record, options]) => [
      { resources: [{ type: "key", id: record.id }] },
      ...(options?.newIdentity ? [{ action: "identity.create", resources: [{ type: "identity", id: options.newIdentity.id }] }] : []),
    ],
    markDeleted: deleted("key"),
    erase: deleted("key"),
  },
  identities: { insert: created("identity"), replace: changed("identity"), markDeleted: deleted("identity") },
  ratelimitNamespaces: { insert: created("ratelimitNamespace") },
  ratelimitOverrides: {
    set: ([record]) => [{ resources: [{ type: "ratelimitOverride", id: record.id }, { type: "ratelimitNamespace", id: record.namespaceId }] }],
    delete: ([, namespaceId, identifier]) => [{ resources: [{ type: "ratelimitNamespace", id: namespaceId }, { type: "ratelimitOverride", id: identifier }] }],
  },
  // Several permissions in one write: one record each.
  permissions: {
    insert: ([records]) => records.map((r: { id: string }) => ({ action: "permission.create", resources: [{ type: "permission", id: r.id }] })),
    delete: deleted("permission"),
  },
  roles: { insert: created("role"), replace: changed("role"), delete: deleted("role") },
  // A queued import's job: stored, then its progress, under the call's (or the job runner's) action.
  migrationJobs: { insert: changed("migration"), saveProgress: changed("migration") },
  webhooks: { insert: created("webhook"), replace: changed("webhook"), delete: deleted("webhook") },
};

/** A workspace is created with its first root key in one write: a record for each. */
const WORKSPACE_WRITE: Records = ([workspace, rootKey]) => [
  { action: "workspace.create", resources: [{ type: "workspace", id: workspace.id }] },
  { action: "rootKey.create", resources: [{ type: "rootKey", id: rootKey.id }] },
];

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
  const recordOf = (spec: WriteRecord, workspaceId: string): AuditRecord => ({
    ...context.newRecord(),
    workspaceId,
    actor: context.actor,
    action: spec.action ?? context.action,
    resources: spec.resources,
    ...(context.requestId !== undefined && { requestId: context.requestId }),
    ...(context.remoteAddress !== undefined && { remoteAddress: context.remoteAddress }),
    ...(context.userAgent !== undefined && { userAgent: context.userAgent }),
  });
  /** The records of one write, all in the caller's workspace (the CLI's workspace create: the one it creates). */
  const recordsOf = (specs: WriteRecord[]): AuditRecord[] => {
    const workspaceId = context.workspaceId ?? specs.flatMap((s) => s.resources).find((r) => r.type === "workspace")?.id ?? "";
    return specs.map((spec) => recordOf(spec, workspaceId));
  };

  async function audited<T>(specs: WriteRecord[], write: () => Promise<T>): Promise<T> {
    context.gate?.beginCommit();
    const records = recordsOf(specs);
    const { result, taken } = auditLogs.inCommit(records, write);
    const value = await result;
    if (taken()) recorded += records.length;
    else if (value !== false) {
      if (records.length === 1) await auditLogs.append(records[0]);
      else await auditLogs.appendMany(records);
      recorded += records.length;
    }
    return value;
  }

  const view: Record<string, unknown> = Object.create(documents);
  for (const [store, writes] of Object.entries(AUDITED_WRITES)) {
    const target = documents[store as keyof DocumentStore] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const sub: Record<string, unknown> = Object.create(target);
    for (const [method, records] of Object.entries(writes)) {
      sub[method] = (...args: unknown[]) => audited(records(args), () => target[method](...args));
    }
    view[store] = sub;
  }
  view.createWorkspace = (...args: unknown[]) =>
    audited(WORKSPACE_WRITE(args), () => (documents.createWorkspace as (...a: unknown[]) => Promise<void>)(...args));

  return {
    documents: view as unknown as DocumentStore,
    recorded: () => recorded,
    async record(resources) {
      await auditLogs.append(recordsOf([{ resources }])[0]);
      recorded += 1;
    },
  };
}
