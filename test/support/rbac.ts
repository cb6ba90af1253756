import { expect } from "vitest";
import type { Harness } from "./use-keyward.js";

let counter = 0;
/** A name no earlier call of this process returned, e.g. `perm.7`. */
export const uniqueName = (prefix: string) => `${prefix}.${++counter}`;

/** Calls a v2 operation with the bootstrap root key and returns its `data`, asserting the 200. */
export async function v2Ok(harness: Harness, op: string, body: unknown): Promise<any> {
  const response = await harness.rest.v2(op, body, harness.keyward.rootKey);
  expect({ op, status: response.status, error: response.body?.error }).toEqual({ op, status: 200, error: undefined });
  return response.body.data;
}

/** A permission of the default workspace whose slug and name are `slug`; returns its id. */
export async function seedPermission(harness: Harness, slug = uniqueName("perm")): Promise<string> {
  return (await v2Ok(harness, "permissions.createPermission", { slug, name: slug })).permissionId;
}

/** A role of the default workspace with these permission slugs (created when missing); returns its id. */
export async function seedRole(harness: Harness, name = uniqueName("role"), permissions: string[] = []): Promise<string> {
  return (await v2Ok(harness, "permissions.createRole", { name, permissions })).roleId;
}

/** A key of a fresh api of the default workspace; returns its id and secret. */
export async function seedKey(harness: Harness, fields: Record<string, unknown> = {}): Promise<{ keyId: string; key: string }> {
  return harness.seed.key(await harness.seed.api({ name: uniqueName("rbac-api") }), fields);
}
