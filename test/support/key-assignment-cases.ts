import { expect, it } from "vitest";
import type { OperationName, Via } from "./operations.js";
import { seedKey, uniqueName } from "./rbac.js";
import { bearerOf, expectRefusal } from "./refusal.js";
import type { Harness } from "./use-keyward.js";
import { ALL_VIAS } from "./vias.js";

type AssignmentOp = Extract<OperationName, `keys.${"add" | "remove" | "set"}${"Permissions" | "Roles"}`>;

const fieldOf = (op: AssignmentOp) => (op.endsWith("Permissions") ? "permissions" : "roles");

/** The op's input in `via`'s dialect: v1 entries are `{name}` objects (`{slug}` for v1 removePermissions). */
export function assignmentInput(op: AssignmentOp, via: Via, keyId: string, refs: string[], options: { create?: boolean } = {}) {
  const field = fieldOf(op);
  if (via !== "v1") return { keyId, [field]: refs };
  const nameKey = op === "keys.removePermissions" ? "slug" : "name";
  return { keyId, [field]: refs.map((ref) => ({ [nameKey]: ref, ...(options.create ? { create: true } : {}) })) };
}

/** 404 cases every key assignment shares: unknown key, another workspace's key, and (where it applies) a missing role or permission. */
export function keyAssignmentNotFoundCases(harness: Harness, op: AssignmentOp): void {
  const field = fieldOf(op);
  const refuse = (via: Via, input: unknown, detail: string) =>
    expectRefusal(harness, { via, op, input, authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail });

  it("an unknown key and another workspace's key answer 404 on every transport, creating nothing", async () => {
    const other = await harness.seed.workspace(uniqueName("ws"));
    const theirApi = (await harness.rest.v2("apis.createApi", { name: "theirs" }, other.rootKey.key)).body.data.apiId;
    const theirs = (await harness.rest.v2("keys.createKey", { apiId: theirApi }, other.rootKey.key)).body.data.keyId;
    for (const via of ALL_VIAS) {
      for (const keyId of ["key_1111111111111111111111", theirs]) await refuse(via, assignmentInput(op, via, keyId, [uniqueName("x")], { create: true }), keyId);
    }
  });

  const removes = op.startsWith("keys.remove");
  it(removes
    ? `removing a ${field.slice(0, -1)} that does not exist answers 404 naming it`
    : `v1 without create:true answers 404 for a ${field.slice(0, -1)} that does not exist, creating nothing`, async () => {
    const { keyId } = await seedKey(harness);
    const vias: Via[] = removes ? ALL_VIAS : ["v1"];
    for (const via of vias) {
      const ref = uniqueName("missing");
      await refuse(via, assignmentInput(op, via, keyId, [ref]), ref);
    }
    expect((await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId))?.[field]).toEqual([]);
  });
}

/** 403: assigning a role or permission that does not exist needs the create permission too, and then nothing changes. */
export function keyAssignmentCreateForbiddenCases(harness: Harness, op: AssignmentOp, permission: string): void {
  const field = fieldOf(op);
  const create = field === "permissions" ? "rbac.*.create_permission" : "rbac.*.create_role";
  it(`creating a missing ${field.slice(0, -1)} needs ${create}: 403 naming it, nothing created or assigned`, async () => {
    const { keyId } = await seedKey(harness);
    const { key } = await harness.seed.rootKey([permission]);
    for (const via of ALL_VIAS) {
      await expectRefusal(harness, {
        via, op, input: assignmentInput(op, via, keyId, ["never.made"], { create: true }), authorization: bearerOf(key), kind: "forbidden", detail: create,
      });
    }
    const ws = harness.keyward.workspaceId;
    const found = field === "permissions"
      ? await harness.keyward.documents.permissions.findBySlugs(ws, ["never.made"])
      : await harness.keyward.documents.roles.findByNames(ws, ["never.made"]);
    expect(found).toEqual([]);
  });
}
