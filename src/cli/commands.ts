import type { Clock } from "../domain/clock.js";
import type { RandomBytes } from "../domain/ids.js";
import { isCataloguePermission } from "../domain/permissions.js";
import { mintRootKey } from "../services/root-keys-service.js";
import { createWorkspaceWithRootKey } from "../services/workspaces-service.js";
import type { DocumentStore } from "../store/ports/documents.js";
import type { RootKeyRecord } from "../store/ports/root-keys.js";
import type { StoreCommand } from "./parse-command.js";

export interface CommandDeps {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
  /** One line of standard output. */
  out: (line: string) => void;
  /** One line of standard error. */
  err: (line: string) => void;
  /** Where the data lives, for messages (e.g. "embedded store in /srv/keyward/data"). */
  storeLabel?: string;
  /**
   * Tells running servers that a root key was revoked, so their caches drop it at once (REDIS_URL set); without it
   * they stop accepting it within their cache's TTL.
   */
  announceRevocation?: (hash: string) => Promise<void>;
}

/** Exit codes: 0 done, 1 refused (bad input, unknown workspace or key). */
export type ExitCode = 0 | 1;

/** Runs one parsed command against the store; prints the result (or why it was refused) and returns the exit code. */
export function runCommand(command: StoreCommand, deps: CommandDeps): Promise<ExitCode> {
  switch (command.kind) {
    case "workspace-create":
      return createWorkspace(command, deps);
    case "root-key-create":
      return createRootKey(command, deps);
    case "root-key-list":
      return listRootKeys(command, deps);
    case "root-key-revoke":
      return revokeRootKey(command, deps);
  }
}

/** Creates a workspace whose first root key holds every permission; prints the key, the only time it is shown. */
export async function createWorkspace(
  command: { name: string; json: boolean },
  deps: CommandDeps,
): Promise<ExitCode> {
  const { workspace, rootKey } = await createWorkspaceWithRootKey(deps, { name: command.name, rootKeyName: "cli" });
  if (command.json) {
    deps.out(JSON.stringify({ workspaceId: workspace.id, name: workspace.name, rootKey }));
  } else {
    deps.out(`Created workspace ${workspace.id} (${workspace.name})${deps.storeLabel ? ` in the ${deps.storeLabel}` : ""}.`);
    deps.out(`Its root key ${rootKey.keyId} holds every permission. It is shown only this once; store it now:`);
    deps.out(`  ${rootKey.key}`);
  }
  return 0;
}

/**
 * Creates a root key in a workspace. Refuses (1) permissions outside the catalogue, naming every one, and an
 * unknown workspace. Unlike the API there is no caller whose grants bound what may be granted: the operator
 * holds the store.
 */
export async function createRootKey(
  command: { workspaceId: string; permissions: string[]; name?: string; expires?: number; json: boolean },
  deps: CommandDeps,
): Promise<ExitCode> {
  const unknown = command.permissions.filter((p) => !isCataloguePermission(p));
  if (unknown.length > 0) {
    return refuse(deps, command.json, `unknown permission${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`, {
      permissions: unknown,
    });
  }
  const now = deps.clock.now();
  if (command.expires !== undefined && command.expires <= now) {
    return refuse(deps, command.json, `--expires ${command.expires} is not in the future (now is ${now})`);
  }
  if (!(await deps.documents.workspaces.get(command.workspaceId))) return unknownWorkspace(deps, command);
  const { record, key } = mintRootKey({
    workspaceId: command.workspaceId,
    permissions: command.permissions,
    name: command.name,
    expiresAt: command.expires,
    now,
    randomBytes: deps.randomBytes,
  });
  await deps.documents.rootKeys.insert(record);
  if (command.json) {
    deps.out(JSON.stringify({ keyId: record.id, key, workspaceId: record.workspaceId, permissions: record.permissions }));
  } else {
    deps.out(`Created root key ${record.id} in workspace ${record.workspaceId}. It is shown only this once; store it now:`);
    deps.out(`  ${key}`);
  }
  return 0;
}

const PAGE = 100;

/** Lists every live root key of a workspace (paging through all of them); never shows a secret. */
export async function listRootKeys(command: { workspaceId: string; json: boolean }, deps: CommandDeps): Promise<ExitCode> {
  if (!(await deps.documents.workspaces.get(command.workspaceId))) return unknownWorkspace(deps, command);
  const keys: RootKeyRecord[] = [];
  for (let after: string | undefined; ;) {
    const page = await deps.documents.rootKeys.list(command.workspaceId, { limit: PAGE, after });
    keys.push(...page);
    if (page.length < PAGE) break;
    after = page[page.length - 1].id;
  }
  // Built field by field, so nothing of the record (its hash included) leaks by accident.
  const shown = keys.map((k) => ({
    keyId: k.id,
    name: k.name,
    start: k.start,
    permissions: k.permissions,
    createdAt: k.createdAt,
    expires: k.expiresAt,
  }));
  if (command.json) {
    deps.out(JSON.stringify({ workspaceId: command.workspaceId, rootKeys: shown }));
    return 0;
  }
  if (shown.length === 0) {
    deps.out(`Workspace ${command.workspaceId} has no live root keys.`);
    return 0;
  }
  const rows = [
    ["ID", "NAME", "START", "CREATED", "EXPIRES", "PERMISSIONS"],
    ...shown.map((k) => [
      k.keyId,
      k.name ?? "-",
      `${k.start}…`,
      new Date(k.createdAt).toISOString(),
      k.expires === undefined ? "-" : new Date(k.expires).toISOString(),
      k.permissions.join(","),
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) {
    deps.out(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join("  "));
  }
  return 0;
}

/** Soft-deletes a live root key of a workspace; an unknown workspace or key (or one already revoked) is refused. */
export async function revokeRootKey(
  command: { workspaceId: string; keyId: string; json: boolean },
  deps: CommandDeps,
): Promise<ExitCode> {
  if (!(await deps.documents.workspaces.get(command.workspaceId))) return unknownWorkspace(deps, command);
  const at = deps.clock.now();
  const record = await deps.documents.rootKeys.get(command.workspaceId, command.keyId);
  if (!record || !(await deps.documents.rootKeys.markDeleted(command.workspaceId, command.keyId, at))) {
    return refuse(deps, command.json, `workspace ${command.workspaceId} has no live root key ${command.keyId}`);
  }
  await deps.announceRevocation?.(record.hash);
  if (command.json) {
    deps.out(JSON.stringify({ keyId: command.keyId, workspaceId: command.workspaceId, revokedAt: at }));
  } else {
    deps.out(`Revoked root key ${command.keyId} of workspace ${command.workspaceId}.`);
  }
  return 0;
}

function unknownWorkspace(deps: CommandDeps, command: { workspaceId: string; json: boolean }): ExitCode {
  const where = deps.storeLabel ? ` in the ${deps.storeLabel}` : "";
  return refuse(deps, command.json, `workspace ${command.workspaceId} does not exist${where}`);
}

function refuse(deps: CommandDeps, json: boolean, message: string, details: Record<string, unknown> = {}): ExitCode {
  deps.err(json ? JSON.stringify({ error: { message, ...details } }) : `keyward: ${message}`);
  return 1;
}
