import type { Clock } from "../../domain/clock.js";
import { KeywardError, notFound } from "../../domain/errors.js";
import { newId, type RandomBytes } from "../../domain/ids.js";
import { UniqueViolationError } from "../../store/errors.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { PermissionRecord, RoleRecord } from "../../store/ports/rbac.js";
import { authorize, type Principal } from "../context.js";

/** What resolving role and permission references needs. */
export interface RbacDeps {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
}

export interface ResolveOptions {
  /** Create what is missing (v2): needs rbac.*.create_permission / create_role. Otherwise a missing one is 404. */
  createMissing: boolean;
}

/** References looked up but not yet created: `missing` is empty when every one exists. */
export interface Resolution<R> {
  missing: string[];
  /** Creates what is missing (when asked to) and returns the records in reference order, each once. */
  complete(options: ResolveOptions): Promise<R[]>;
}

const dedupe = (refs: readonly string[]) => [...new Set(refs)];

/** An id and a name may name the same record: keep it once, in first-mention order. */
function uniqueById<R extends { id: string }>(records: Array<R | undefined>): R[] {
  const seen = new Set<string>();
  return records.filter((r): r is R => r !== undefined && !seen.has(r.id) && seen.add(r.id) !== undefined);
}

interface Kind<R> {
  label: "permission" | "role";
  idPrefix: "perm_" | "role_";
  action: "create_permission" | "create_role";
  get(workspaceId: string, id: string): Promise<R | undefined>;
  findByNames(workspaceId: string, names: string[]): Promise<R[]>;
  nameOf(record: R): string;
  create(workspaceId: string, names: string[], now: number): R[];
  insert(records: R[]): Promise<void>;
}

/** Looks references (ids or names) up in the principal's workspace; another workspace's record is as missing as an unknown one. */
async function lookUp<R extends { id: string }>(deps: RbacDeps, principal: Principal, refs: readonly string[], kind: Kind<R>): Promise<Resolution<R>> {
  const { workspaceId } = principal;
  const found = new Map<string, R>();
  for (const ref of dedupe(refs)) {
    if (!ref.startsWith(kind.idPrefix)) continue;
    const byId = await kind.get(workspaceId, ref);
    if (byId) found.set(ref, byId);
  }
  const byName = async (names: string[]) => {
    if (names.length === 0) return;
    for (const record of await kind.findByNames(workspaceId, names)) found.set(kind.nameOf(record), record);
  };
  await byName(dedupe(refs).filter((ref) => !found.has(ref)));
  const missing = dedupe(refs).filter((ref) => !found.has(ref));
  return {
    missing,
    async complete(options) {
      if (missing.length > 0) {
        if (!options.createMissing) throw notFound(`The ${kind.label} ${missing.map((m) => JSON.stringify(m)).join(", ")} does not exist.`);
        authorize(principal, { resourceType: "rbac", action: kind.action });
        const records = kind.create(workspaceId, missing, deps.clock.now());
        try {
          await kind.insert(records);
          records.forEach((record, i) => found.set(missing[i], record));
        } catch (error) {
          // A concurrent request created some of them first: use theirs.
          if (!(error instanceof UniqueViolationError)) throw error;
          await byName(missing);
          const still = missing.find((ref) => !found.has(ref));
          if (still !== undefined) throw new KeywardError("conflict", `A ${kind.label} named ${JSON.stringify(still)} exists under another reference.`);
        }
      }
      return uniqueById(dedupe(refs).map((ref) => found.get(ref)));
    },
  };
}

function permissionKind(deps: RbacDeps): Kind<PermissionRecord> {
  const store = deps.documents.permissions;
  return {
    label: "permission", idPrefix: "perm_", action: "create_permission",
    get: (ws, id) => store.get(ws, id),
    findByNames: (ws, slugs) => store.findBySlugs(ws, slugs),
    nameOf: (p) => p.slug,
    create: (workspaceId, slugs, now) => slugs.map((slug) => ({ id: newId("perm", now, deps.randomBytes), workspaceId, name: slug, slug, createdAt: now })),
    insert: (records) => store.insert(records),
  };
}

function roleKind(deps: RbacDeps): Kind<RoleRecord> {
  const store = deps.documents.roles;
  return {
    label: "role", idPrefix: "role_", action: "create_role",
    get: (ws, id) => store.get(ws, id),
    findByNames: (ws, names) => store.findByNames(ws, names),
    nameOf: (r) => r.name,
    create: (workspaceId, names, now) => names.map((name) => ({ id: newId("role", now, deps.randomBytes), workspaceId, name, permissions: [], createdAt: now })),
    async insert(records) {
      for (const record of records) await store.insert(record);
    },
  };
}

/** Looks permission references (an id `perm_...` or a slug) up; created permissions get name = slug. */
export function lookUpPermissions(deps: RbacDeps, principal: Principal, refs: readonly string[]): Promise<Resolution<PermissionRecord>> {
  return lookUp(deps, principal, refs, permissionKind(deps));
}

/** Looks role references (an id `role_...` or a name) up; created roles have no permissions. */
export function lookUpRoles(deps: RbacDeps, principal: Principal, refs: readonly string[]): Promise<Resolution<RoleRecord>> {
  return lookUp(deps, principal, refs, roleKind(deps));
}

/** Looks up and completes in one step: missing permissions are created (`createMissing`) or refused with 404. */
export async function resolvePermissions(deps: RbacDeps, principal: Principal, refs: readonly string[], options: ResolveOptions): Promise<PermissionRecord[]> {
  return (await lookUpPermissions(deps, principal, refs)).complete(options);
}

/** Looks up and completes in one step, for roles. */
export async function resolveRoles(deps: RbacDeps, principal: Principal, refs: readonly string[], options: ResolveOptions): Promise<RoleRecord[]> {
  return (await lookUpRoles(deps, principal, refs)).complete(options);
}

/** Permission records of these slugs in slug order; slugs without a record (data from before RBAC) are skipped. */
export async function permissionsOf(deps: RbacDeps, workspaceId: string, slugs: readonly string[]): Promise<PermissionRecord[]> {
  if (slugs.length === 0) return [];
  const bySlug = new Map((await deps.documents.permissions.findBySlugs(workspaceId, [...slugs])).map((p) => [p.slug, p]));
  return slugs.flatMap((slug) => bySlug.get(slug) ?? []);
}

/** Role records of these names in name order; names without a record are skipped. */
export async function rolesOf(deps: RbacDeps, workspaceId: string, names: readonly string[]): Promise<RoleRecord[]> {
  if (names.length === 0) return [];
  const byName = new Map((await deps.documents.roles.findByNames(workspaceId, [...names])).map((r) => [r.name, r]));
  return names.flatMap((name) => byName.get(name) ?? []);
}
