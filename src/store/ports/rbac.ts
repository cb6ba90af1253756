import type { PageQuery } from "./pages.js";

/** A permission keys and roles carry by its slug; slug and name are each unique within a workspace. */
export interface PermissionRecord {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
  description?: string;
  createdAt: number;
  updatedAt?: number;
}

/** A named bundle of permission slugs; the name is unique within a workspace and keys carry it. */
export interface RoleRecord {
  id: string;
  workspaceId: string;
  name: string;
  description?: string;
  /** Permission slugs. */
  permissions: string[];
  createdAt: number;
  updatedAt?: number;
  /**
   * Bumped by every write of the record, a permission delete's cascade included (absent = 0, as in records stored before revisions existed): `replace`
   * compares it, so a read-modify-write cannot silently overwrite a concurrent one.
   */
  revision?: number;
}

/**
 * Permissions are deleted for good (no soft delete), so a slug or name can be used again; deleting one removes its
 * slug from every role and key of the workspace.
 */
export interface PermissionStore {
  /** All or nothing; UniqueViolationError when a slug or name is taken in the workspace (or twice in `records`). */
  insert(records: PermissionRecord[]): Promise<void>;
  get(workspaceId: string, id: string): Promise<PermissionRecord | undefined>;
  /** The workspace's permissions with these slugs (any order; unknown slugs are skipped). */
  findBySlugs(workspaceId: string, slugs: string[]): Promise<PermissionRecord[]>;
  /** With `search`: only those whose id, name, slug or description contains it, ignoring case. */
  list(workspaceId: string, page: PageQuery & { search?: string }): Promise<PermissionRecord[]>;
  /**
   * Deletes it and removes its slug from every role and key (bumping their revisions, so a replace that read a list
   * before the delete cannot write the slug back); false when the workspace has no such permission.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** Roles are deleted for good; deleting one removes its name from every key of the workspace. */
export interface RoleStore {
  /** UniqueViolationError when the name is taken in the workspace. */
  insert(record: RoleRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<RoleRecord | undefined>;
  /** The workspace's roles with these names (any order; unknown names are skipped). */
  findByNames(workspaceId: string, names: string[]): Promise<RoleRecord[]>;
  /** With `search`: only those whose id, name or description contains it, ignoring case. */
  list(workspaceId: string, page: PageQuery & { search?: string }): Promise<RoleRecord[]>;
  /**
   * Compare-and-swap of a role's description and permissions (same id, workspace and name): writes only while the
   * stored revision still equals `record.revision`, and stores revision + 1. False when the role is gone or was
   * changed since it was read (by another replace, or by a permission delete pulling a slug from it).
   */
  replace(record: RoleRecord): Promise<boolean>;
  /** Deletes it and removes its name from every key; false when the workspace has no such role. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}
