import { describe, expect, it } from "vitest";
import { allPermissions } from "../../../src/domain/permissions.js";
import { dataOf } from "../../support/key-state.js";
import type { Via } from "../../support/operations.js";
import type { Harness } from "../../support/use-keyward.js";
import { useKeyward } from "../../support/use-keyward.js";
import { connect, grpc, requestIdOf, restV1, restV2, viaClient } from "../../support/vias.js";

type Record_ = { action: string; resources: { type: string; id: string }[] };

/**
 * One call that creates (or deletes) documents besides its own: the records it must write, exactly, each with its
 * own action. `expected` reads the ids of what the call created from the store after the call.
 */
interface OnDemandCase {
  op: Parameters<ReturnType<typeof viaClient>["call"]>[0];
  via?: Via;
  setup: (h: Harness, n: string) => Promise<Record<string, unknown>>;
  expected: (h: Harness, n: string, data: any, input: Record<string, unknown>) => Promise<Record_[]>;
}

const ws = (h: Harness) => h.keyward.workspaceId;
const permissionId = async (h: Harness, slug: string) => (await h.keyward.documents.permissions.findBySlugs(ws(h), [slug]))[0].id;
const roleId = async (h: Harness, name: string) => (await h.keyward.documents.roles.findByNames(ws(h), [name]))[0].id;
const identityId = async (h: Harness, externalId: string) => (await h.keyward.documents.identities.findByExternalId(ws(h), externalId))!.id;
const rec = (action: string, type: string, id: string): Record_ => ({ action, resources: [{ type, id }] });
const keyOf = async (h: Harness, fields: Record<string, unknown> = {}) => h.seed.key(await h.seed.api(), fields);

/** Every on-demand creation, and rerollKey: the table the issue asks for (#20, one audit record per change). */
const CASES: Record<string, OnDemandCase> = {
  "v2 createKey with a new identity, two new permissions and a new role": {
    op: "keys.createKey",
    setup: async (h, n) => ({ apiId: await h.seed.api(), externalId: `ext-${n}`, permissions: [`p1-${n}`, `p2-${n}`], roles: [`r-${n}`] }),
    expected: async (h, n, data) => [
      rec("permission.create", "permission", await permissionId(h, `p1-${n}`)),
      rec("permission.create", "permission", await permissionId(h, `p2-${n}`)),
      rec("role.create", "role", await roleId(h, `r-${n}`)),
      rec("identity.create", "identity", await identityId(h, `ext-${n}`)),
      rec("key.create", "key", data.keyId),
    ],
  },
  "v1 createKey with a new ownerId (the identity created on demand)": {
    op: "keys.createKey", via: restV1,
    setup: async (h, n) => ({ apiId: await h.seed.api(), ownerId: `owner-${n}` }),
    expected: async (h, n, data) => [rec("identity.create", "identity", await identityId(h, `owner-${n}`)), rec("key.create", "key", data.keyId)],
  },
  "updateKey linking a new identity, with new permissions and roles (createMissing)": {
    op: "keys.updateKey",
    setup: async (h, n) => ({ keyId: (await keyOf(h)).keyId, externalId: `ext-${n}`, permissions: [`p-${n}`], roles: [`r-${n}`] }),
    expected: async (h, n, _data, input) => [
      rec("permission.create", "permission", await permissionId(h, `p-${n}`)),
      rec("role.create", "role", await roleId(h, `r-${n}`)),
      rec("key.update", "key", input.keyId as string),
      rec("identity.create", "identity", await identityId(h, `ext-${n}`)),
    ],
  },
  ...Object.fromEntries((["add", "set"] as const).flatMap((verb) => (["Permissions", "Roles"] as const).map((what) => [
    `keys.${verb}${what} naming two that do not exist`,
    {
      op: `keys.${verb}${what}` as OnDemandCase["op"],
      setup: async (h, n) => ({ keyId: (await keyOf(h)).keyId, [what.toLowerCase()]: [`a-${n}`, `b-${n}`] }),
      expected: async (h, n, _data, input) => {
        const [type, lookup] = what === "Roles" ? ["role", roleId] as const : ["permission", permissionId] as const;
        return [
          rec(`${type}.create`, type, await lookup(h, `a-${n}`)),
          rec(`${type}.create`, type, await lookup(h, `b-${n}`)),
          rec(`key.${verb}${what}`, "key", input.keyId as string),
        ];
      },
    } satisfies OnDemandCase,
  ]))),
  "createRole with a new permission": {
    op: "permissions.createRole",
    setup: async (_h, n) => ({ name: `role-${n}`, permissions: [`p-${n}`] }),
    expected: async (h, n, data) => [rec("permission.create", "permission", await permissionId(h, `p-${n}`)), rec("role.create", "role", data.roleId)],
  },
  "setRolePermissions with a new permission": {
    op: "permissions.setRolePermissions",
    setup: async (h, n) => ({ roleId: (await h.rest.v2("permissions.createRole", { name: `role-${n}` }, h.keyward.rootKey)).body.data.roleId, permissions: [`p-${n}`] }),
    expected: async (h, n, _data, input) => [
      rec("permission.create", "permission", await permissionId(h, `p-${n}`)), rec("role.setPermissions", "role", input.roleId as string),
    ],
  },
  "createIdentity with ratelimits (the limits live in the identity: one record)": {
    op: "identities.createIdentity",
    setup: async (_h, n) => ({ externalId: `ext-${n}`, ratelimits: [{ name: "requests", limit: 10, duration: 1000 }] }),
    expected: async (_h, _n, data) => [rec("identity.create", "identity", data.identityId)],
  },
  "rerollKey keeping the old key for a while: key.create for the new, key.reroll for the old": {
    op: "keys.rerollKey", via: connect,
    setup: async (h) => ({ keyId: (await keyOf(h)).keyId, expiration: 60_000 }),
    expected: async (_h, _n, data, input) => [rec("key.create", "key", data.keyId), rec("key.reroll", "key", input.keyId as string)],
  },
  "rerollKey with expiration 0: key.create for the new, key.delete for the old": {
    op: "keys.rerollKey", via: grpc,
    setup: async (h) => ({ keyId: (await keyOf(h)).keyId, expiration: 0 }),
    expected: async (_h, _n, data, input) => [rec("key.create", "key", data.keyId), rec("key.delete", "key", input.keyId as string)],
  },
  "createWorkspace: the workspace and its first root key": {
    op: "workspaces.createWorkspace",
    setup: async (_h, n) => ({ name: `ws-${n}` }),
    expected: async (_h, _n, data) => [rec("workspace.create", "workspace", data.workspaceId), rec("rootKey.create", "rootKey", data.rootKey.keyId)],
  },
};

describe("audit log: one record per document a call creates, each with its own action", () => {
  const harness = useKeyward();
  let counter = 0;

  for (const [what, c] of Object.entries(CASES)) {
    it(`${what} (${c.via ?? restV2})`, async () => {
      const n = `od${++counter}`;
      const input = await c.setup(harness, n);
      const { keyId: actor, key: rootKey } = await harness.seed.rootKey(allPermissions());
      const outcome = await viaClient(harness.keyward.baseUrl, c.via ?? restV2, rootKey).call(c.op, input);
      const data = dataOf(c.op, outcome);
      const records = (await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey)).body.data;
      const requestId = requestIdOf(outcome);
      expect(records.every((r: any) => r.requestId === requestId && r.workspaceId === ws(harness))).toBe(true);
      // Records list in write order; the comparison is by content, so the order within one write does not matter.
      const order = (list: Record_[]) => [...list].sort((a, b) => (a.action + a.resources[0].id < b.action + b.resources[0].id ? -1 : 1));
      expect(order(records.map((r: any) => ({ action: r.action, resources: r.resources })))).toEqual(order(await c.expected(harness, n, data, input)));
    });
  }

  it("a second createKey naming the same identity, permission and role creates nothing: only key.create", async () => {
    const apiId = await harness.seed.api();
    const input = { apiId, externalId: "ext-reused", permissions: ["p-reused"], roles: ["r-reused"] };
    await harness.seed.key(apiId, input);
    const { keyId: actor, key: rootKey } = await harness.seed.rootKey(allPermissions());
    const second = await harness.rest.v2("keys.createKey", input, rootKey);
    const records = (await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey)).body.data;
    expect(records.map((r: any) => [r.action, r.resources])).toEqual([["key.create", [{ type: "key", id: second.body.data.keyId }]]]);
  });
});
