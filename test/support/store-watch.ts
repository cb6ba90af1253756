import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { RootKeyRecord } from "../../src/store/ports/root-keys.js";
import type { WorkspaceRecord } from "../../src/store/ports/workspaces.js";

/** One write the services asked the store for, e.g. `apis.insert api_...`. */
export interface RecordedWrite {
  call: string;
  id: string;
}

/**
 * Records every write the store performs (the real one: each call is passed through unchanged; a soft delete
 * that found nothing to delete is not a write), so a failure test can assert that nothing was written. The services hold the same store object, so the
 * recorder sees their writes.
 */
export function watchWrites(documents: DocumentStore): { readonly writes: RecordedWrite[]; clear(): void } {
  const writes: RecordedWrite[] = [];
  const wrap = <T extends object>(target: T, prefix: string, names: (keyof T & string)[], idOf: (args: any[]) => string) => {
    for (const name of names) {
      const original = (target[name] as (...args: unknown[]) => Promise<unknown>).bind(target);
      (target as Record<string, unknown>)[name] = async (...args: unknown[]) => {
        const result = await original(...args);
        // markDeleted answers false when there was nothing to delete: no write happened.
        if (result !== false) writes.push({ call: `${prefix}${name}`, id: idOf(args) });
        return result;
      };
    }
  };
  wrap(documents.apis, "apis.", ["insert"], ([record]) => record.id);
  wrap(documents.apis, "apis.", ["markDeleted"], ([, id]) => id);
  wrap(documents.rootKeys, "rootKeys.", ["insert"], ([record]) => record.id);
  wrap(documents.rootKeys, "rootKeys.", ["markDeleted"], ([, id]) => id);
  wrap(documents, "", ["createWorkspace"], ([workspace]) => workspace.id);
  wrap(documents.keys, "keys.", ["insert", "replace"], ([record]) => record.id);
  wrap(documents.keys, "keys.", ["insertMany"], ([records]) => records.map((r: { id: string }) => r.id).join(","));
  wrap(documents.migrationJobs, "migrationJobs.", ["insert", "saveProgress"], ([record]) => record.id);
  wrap(documents.keys, "keys.", ["markDeleted", "erase"], ([, id]) => id);
  wrap(documents.identities, "identities.", ["insert", "replace"], ([record]) => record.id);
  wrap(documents.identities, "identities.", ["markDeleted"], ([, id]) => id);
  wrap(documents.ratelimitNamespaces, "ratelimitNamespaces.", ["insert"], ([record]) => record.id);
  wrap(documents.ratelimitOverrides, "ratelimitOverrides.", ["set"], ([record]) => record.id);
  wrap(documents.ratelimitOverrides, "ratelimitOverrides.", ["delete"], ([, , identifier]) => identifier);
  wrap(documents.permissions, "permissions.", ["insert"], ([records]) => records.map((r: { id: string }) => r.id).join(","));
  wrap(documents.permissions, "permissions.", ["delete"], ([, id]) => id);
  wrap(documents.roles, "roles.", ["insert", "replace"], ([record]) => record.id);
  wrap(documents.roles, "roles.", ["delete"], ([, id]) => id);
  return { writes, clear: () => void writes.splice(0) };
}

/** What a caller can observe of the store: every workspace and the live root keys of each. */
export interface StoreSnapshot {
  workspaces: WorkspaceRecord[];
  rootKeys: Record<string, RootKeyRecord[]>;
}

/** Reads every workspace and its live root keys, for before/after comparisons. */
export async function snapshotStore(documents: DocumentStore): Promise<StoreSnapshot> {
  const workspaces = await documents.workspaces.list({ limit: 10_000 });
  const rootKeys: Record<string, RootKeyRecord[]> = {};
  for (const workspace of workspaces) rootKeys[workspace.id] = await documents.rootKeys.list(workspace.id, { limit: 10_000 });
  return { workspaces, rootKeys };
}
