import type { PermissionsService } from "../../../gen/keyward/v1/permissions_pb.js";
import { invalid, KeywardError, notFound } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import { UniqueViolationError } from "../../store/errors.js";
import type { PageQuery } from "../../store/ports/pages.js";
import type { PermissionRecord, RoleRecord } from "../../store/ports/rbac.js";
import { authorize, type Principal, type ServiceHandlers } from "../context.js";
import type { KeyCache } from "../key-cache.js";
import { paginate } from "../pagination.js";
import { replaceWithRetry } from "../replace-with-retry.js";
import { permissionsOf, resolvePermissions, resolveRoles, type RbacDeps } from "./rbac-refs.js";
import { permissionView, roleViews } from "./rbac-views.js";

export interface PermissionsServiceDeps extends RbacDeps {
  /** Keys are cached with their effective permissions: a role or permission change drops them all. */
  cache: Pick<KeyCache, "invalidate">;
}

/** What a query name may hold (the v2 query grammar's name characters); v1 permission names are slugs too. */
const SLUG = /^[a-zA-Z0-9_:.*-]{1,128}$/;

/** permissions.*: the workspace's permissions and roles. Deleting either cascades to every holder (the store does it). */
export function createPermissionsService(deps: PermissionsServiceDeps): ServiceHandlers<typeof PermissionsService> {
  const { documents, clock, cache } = deps;

  async function loadPermission(principal: Principal, ref: string): Promise<PermissionRecord> {
    const [found] = await resolvePermissions(deps, principal, [ref], { createMissing: false }).catch(rethrowNotFound(`The permission ${ref} does not exist.`));
    return found;
  }

  async function loadRole(principal: Principal, ref: string): Promise<RoleRecord> {
    const [found] = await resolveRoles(deps, principal, [ref], { createMissing: false }).catch(rethrowNotFound(`The role ${ref} does not exist.`));
    return found;
  }

  /** A v2 page, or (v1) every item at once. */
  async function listed<T extends { id: string }>(
    request: { limit?: number; cursor?: string; all?: boolean; search?: string },
    list: (page: PageQuery & { search?: string }) => Promise<T[]>,
  ) {
    const fetch = (page: PageQuery) => list({ ...page, search: request.search || undefined }); // "": no filter (Unkey v2)
    if (!request.all) return paginate(request, fetch);
    const items: T[] = [];
    for (let page = await fetch({ limit: 1000 }); page.length > 0; page = await fetch({ limit: 1000, after: page[page.length - 1].id })) items.push(...page);
    return { items, hasMore: false, cursor: undefined };
  }

  return {
    async createPermission(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "create_permission" });
      const slug = request.slug ?? request.name;
      if (!SLUG.test(slug)) {
        const location = request.slug === undefined ? "name" : "slug";
        throw invalid(`${location} must be 1-128 letters, digits or _ : - . * (it is what keys carry and queries name).`, [
          { location, message: "letters, digits and _ : - . * only, at most 128" },
        ]);
      }
      const now = clock.now();
      const record: PermissionRecord = {
        id: newId("perm", now, deps.randomBytes), workspaceId: principal.workspaceId, name: request.name, slug, description: request.description, createdAt: now,
      };
      if (record.description === undefined) delete record.description;
      try {
        await documents.permissions.insert([record]);
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
        const field = error.index.endsWith("slug") ? `slug ${JSON.stringify(slug)}` : `name ${JSON.stringify(request.name)}`;
        throw new KeywardError("conflict", `A permission with the ${field} already exists in this workspace.`);
      }
      return { permissionId: record.id };
    },

    async getPermission(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "read_permission" });
      return { permission: permissionView(await loadPermission(principal, request.permission)) };
    },

    async listPermissions(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "read_permission" });
      const page = await listed(request, (p) => documents.permissions.list(principal.workspaceId, p));
      return { data: page.items.map(permissionView), pagination: { cursor: page.cursor, hasMore: page.hasMore } };
    },

    async deletePermission(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "delete_permission" });
      const permission = await loadPermission(principal, request.permission);
      if (!(await documents.permissions.delete(principal.workspaceId, permission.id))) throw notFound(`The permission ${request.permission} does not exist.`);
      cache.invalidate({ kind: "all" });
      return {};
    },

    async createRole(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "create_role" });
      if ((await documents.roles.findByNames(principal.workspaceId, [request.name])).length > 0) throw roleExists(request.name);
      const permissions = await resolvePermissions(deps, principal, request.permissions, { createMissing: true });
      const now = clock.now();
      const record: RoleRecord = {
        id: newId("role", now, deps.randomBytes), workspaceId: principal.workspaceId, name: request.name, description: request.description,
        permissions: permissions.map((p) => p.slug), createdAt: now,
      };
      if (record.description === undefined) delete record.description;
      try {
        await documents.roles.insert(record);
      } catch (error) {
        if (error instanceof UniqueViolationError) throw roleExists(request.name);
        throw error;
      }
      // A key may already name it (a role deleted by another instance mid-assignment, or data from before RBAC).
      cache.invalidate({ kind: "all" });
      return { roleId: record.id };
    },

    async getRole(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "read_role" });
      const [view] = await roleViews(deps, principal.workspaceId, [await loadRole(principal, request.role)]);
      return { role: view };
    },

    async listRoles(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "read_role" });
      const page = await listed(request, (p) => documents.roles.list(principal.workspaceId, p));
      return { data: await roleViews(deps, principal.workspaceId, page.items), pagination: { cursor: page.cursor, hasMore: page.hasMore } };
    },

    async deleteRole(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "delete_role" });
      const role = await loadRole(principal, request.role);
      if (!(await documents.roles.delete(principal.workspaceId, role.id))) throw notFound(`The role ${request.role} does not exist.`);
      cache.invalidate({ kind: "all" });
      return {};
    },

    async setRolePermissions(request, { principal }) {
      authorize(principal, { resourceType: "rbac", action: "add_permission_to_role" });
      const role = await loadRole(principal, request.roleId);
      let permissions: PermissionRecord[] = [];
      // Runs again on a fresh read when the role changed meanwhile (e.g. a permission delete pulled a slug from it).
      const written = await replaceWithRetry({
        read: role,
        reload: () => documents.roles.get(principal.workspaceId, role.id),
        async change(current) {
          // Checked before anything is created: a refused request changes nothing.
          const held = await permissionsOf(deps, principal.workspaceId, current.permissions);
          if (held.some((p) => !request.permissions.includes(p.slug) && !request.permissions.includes(p.id))) {
            authorize(principal, { resourceType: "rbac", action: "remove_permission_from_role" });
          }
          permissions = await resolvePermissions(deps, principal, request.permissions, { createMissing: true });
          return { ...current, permissions: permissions.map((p) => p.slug), updatedAt: clock.now() };
        },
        replace: (record) => documents.roles.replace(record),
        subject: `The role ${role.id}`,
      });
      if (!written) throw notFound(`The role ${request.roleId} does not exist.`);
      cache.invalidate({ kind: "all" });
      return { data: permissions.map(permissionView) };
    },
  };
}

function roleExists(name: string) {
  return new KeywardError("conflict", `A role named ${JSON.stringify(name)} already exists in this workspace.`);
}

/** A lookup without creation reports the list it missed; a single-reference load names the reference as given. */
function rethrowNotFound(detail: string) {
  return (error: unknown): never => {
    if (error instanceof KeywardError && error.kind === "not_found") throw notFound(detail);
    throw error;
  };
}
