/**
 * A key's effective permissions (DESIGN.md §3 "Permissions"): its direct permission slugs ∪ those of its roles,
 * each once, direct ones first, then role by role in the key's role order. Roles the key names but that no longer
 * exist contribute nothing.
 */
export function effectivePermissions(
  key: { permissions: readonly string[]; roles: readonly string[] },
  roles: ReadonlyArray<{ name: string; permissions: readonly string[] }>,
): string[] {
  const byName = new Map(roles.map((role) => [role.name, role]));
  const out = new Set(key.permissions);
  for (const name of key.roles) for (const slug of byName.get(name)?.permissions ?? []) out.add(slug);
  return [...out];
}
