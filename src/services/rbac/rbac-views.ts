import type { MessageInitShape } from "@bufbuild/protobuf";
import type { PermissionSchema, RoleSchema } from "../../../gen/keyward/v1/permissions_pb.js";
import type { PermissionRecord, RoleRecord } from "../../store/ports/rbac.js";
import { permissionsOf, type RbacDeps } from "./rbac-refs.js";

/** A permission as every call shows it. */
export function permissionView(permission: PermissionRecord): MessageInitShape<typeof PermissionSchema> {
  return { id: permission.id, name: permission.name, slug: permission.slug, description: permission.description };
}

/** Roles as calls show them, each with its permission records (loaded in one query for all of them). */
export async function roleViews(deps: RbacDeps, workspaceId: string, roles: RoleRecord[]): Promise<MessageInitShape<typeof RoleSchema>[]> {
  const all = await permissionsOf(deps, workspaceId, [...new Set(roles.flatMap((r) => r.permissions))]);
  const bySlug = new Map(all.map((p) => [p.slug, p]));
  return roles.map((role) => ({
    id: role.id,
    name: role.name,
    description: role.description,
    permissions: role.permissions.flatMap((slug) => {
      const permission = bySlug.get(slug);
      return permission ? [permissionView(permission)] : [];
    }),
  }));
}
