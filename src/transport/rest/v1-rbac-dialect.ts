import { invalid } from "../../domain/errors.js";
import { requireMinLength, requirePresent } from "./unkey-bounds.js";
import type { DialectMapping } from "./dialect-mapping.js";

type Json = Record<string, any>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Drops keys whose value is undefined, so absent stays absent. */
function compact(json: Json): Json {
  return Object.fromEntries(Object.entries(json).filter(([, v]) => v !== undefined));
}

/** v1 names a role or permission `roleId` / `permissionId`; the RPC takes `role` / `permission` (an id or a name). */
function v1Reference(v1Field: string, field: string) {
  return (input: unknown) => {
    if (!isObject(input)) return input;
    const { [v1Field]: ref, ...rest } = input;
    if (ref === undefined || ref === "") throw invalid(`${v1Field} is required.`, [{ location: v1Field, message: "required" }]);
    return { ...rest, [field]: ref };
  };
}

/**
 * v1 role/permission entries `{id?, name?|slug?, create?}` onto the RPC's references (ids or names); the RPC creates
 * missing names when any entry asks for it (create:true).
 */
function v1Assignment(field: "permissions" | "roles", options: { nameKeys: string[]; minItems: number; creates: boolean }) {
  return (input: unknown) => {
    requirePresent(input, [field]);
    if (!isObject(input) || !Array.isArray(input[field])) return input;
    const entries = input[field] as unknown[];
    if (entries.length < options.minItems) throw invalid(`${field} needs at least ${options.minItems} entry.`, [{ location: field, message: `at least ${options.minItems} entry` }]);
    const refs = entries.map((entry, i) => {
      const ref = isObject(entry) ? entry.id ?? options.nameKeys.map((k) => entry[k]).find((v) => v !== undefined) : undefined;
      if (typeof ref !== "string" || ref === "") {
        throw invalid(`${field}[${i}] needs an id or a ${options.nameKeys.join(" or ")}.`, [{ location: `${field}[${i}]`, message: `id or ${options.nameKeys.join("/")} required` }]);
      }
      return ref;
    });
    const create = entries.some((entry) => isObject(entry) && entry.create === true);
    // Removals take no create flag.
    return options.creates ? { ...input, [field]: refs, createMissing: create } : { ...input, [field]: refs };
  };
}

/**
 * Unkey v1 refuses permission and role names and slugs shorter than 3 characters, and descriptions other than "" or
 * 3-256 characters (v2 and the RPCs take any non-empty name and up to 512 characters of description).
 */
function v1MinNameLength(input: unknown): unknown {
  if (!isObject(input)) return input;
  requireMinLength(input.name, 3, "name");
  requireMinLength(input.slug, 3, "slug");
  const { description } = input;
  if (typeof description === "string" && description !== "" && (description.length < 3 || description.length > 256)) {
    throw invalid("description: must be empty or 3-256 characters", [{ location: "description", message: "must be empty or 3-256 characters" }]);
  }
  return input;
}

/** v1 answers assignments with `[{id, name}]`. */
const idAndName = (items: unknown) => (Array.isArray(items) ? items.map((item: Json) => ({ id: item.id, name: item.name })) : items);
const withoutPermissions = (role: Json) => compact({ id: role.id, name: role.name, description: role.description });

/** The v1 shapes of the permissions.* routes and the key role/permission assignments. */
export const v1RbacMappings: Record<string, DialectMapping> = {
  "/v1/permissions.createPermission": { request: v1MinNameLength },
  "/v1/permissions.createRole": { request: v1MinNameLength },
  "/v1/permissions.getPermission": { request: v1Reference("permissionId", "permission") },
  "/v1/permissions.deletePermission": { request: v1Reference("permissionId", "permission") },
  "/v1/permissions.listPermissions": { request: () => ({ all: true }), response: (json) => json.data ?? [] },
  "/v1/permissions.getRole": { request: v1Reference("roleId", "role"), response: withoutPermissions },
  "/v1/permissions.deleteRole": { request: v1Reference("roleId", "role") },
  "/v1/permissions.listRoles": { request: () => ({ all: true }), response: (json) => ((json.data ?? []) as Json[]).map(withoutPermissions) },
  "/v1/keys.addPermissions": { request: v1Assignment("permissions", { nameKeys: ["name"], minItems: 1, creates: true }), response: idAndName },
  "/v1/keys.setPermissions": { request: v1Assignment("permissions", { nameKeys: ["name", "slug"], minItems: 1, creates: true }), response: idAndName },
  "/v1/keys.removePermissions": { request: v1Assignment("permissions", { nameKeys: ["slug", "name"], minItems: 1, creates: false }), response: () => ({}) },
  "/v1/keys.addRoles": { request: v1Assignment("roles", { nameKeys: ["name"], minItems: 1, creates: true }), response: idAndName },
  "/v1/keys.setRoles": { request: v1Assignment("roles", { nameKeys: ["name"], minItems: 1, creates: true }), response: idAndName },
  "/v1/keys.removeRoles": { request: v1Assignment("roles", { nameKeys: ["name"], minItems: 1, creates: false }), response: () => ({}) },
};
