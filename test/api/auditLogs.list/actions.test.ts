import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { AUDIT_ACTIONS, changesState, NAMESPACE_CREATE_ACTION } from "../../../src/domain/audit-actions.js";
import { allPermissions } from "../../../src/domain/permissions.js";
import { rpcName } from "../../../src/services/audit/audited-operations.js";
import { foreignKey } from "../../support/imports.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { useKeyward, type Harness } from "../../support/use-keyward.js";

const AGENT = "keyward-audit-test/1.0";

/**
 * One successful call of a state-changing RPC over REST v2; returns a resource its audit records must name, and the
 * actions they carry when not only the RPC's own (documents created or deleted on the way record their own action).
 */
type Case = (h: Harness) => Promise<{
  op: string; body: Record<string, unknown>; resource: (data: any) => { type: string; id: string }; actions?: string[];
}>;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;
/** Namespaces are created on first use, by a limit call (audited as ratelimitNamespace.create; see the last test). */
const namespace = (h: Harness) => h.rest.v2("ratelimit.limit", { namespace: "audited-ns", identifier: "seed", limit: 10, duration: 1000 }, h.keyward.rootKey);
/** A webhook endpoint (never reached: nothing subscribes to what these cases do). */
const webhookOf = async (h: Harness): Promise<string> =>
  (await h.rest.v2("webhooks.createWebhook", { url: "https://hooks.example.com/audit", events: ["api.delete"] }, h.keyward.rootKey)).body.data.webhookId;
const keyOf = async (h: Harness, fields: Record<string, unknown> = {}) => h.seed.key(await h.seed.api(), fields);

const CASES: Record<string, Case> = {
  "keyward.v1.ApisService.CreateApi": async () => ({ op: "apis.createApi", body: { name: "audited" }, resource: (d) => ({ type: "api", id: d.apiId }) }),
  "keyward.v1.ApisService.DeleteApi": async (h) => {
    const apiId = await h.seed.api();
    return { op: "apis.deleteApi", body: { apiId }, resource: () => ({ type: "api", id: apiId }) };
  },
  "keyward.v1.ApisService.DeleteKeys": async (h) => {
    const apiId = await h.seed.api();
    const { keyId } = await h.seed.key(apiId);
    return { op: "apis.deleteKeys", body: { apiId }, resource: () => ({ type: "key", id: keyId }) };
  },
  "keyward.v1.ApisService.UpdateApi": async (h) => {
    const apiId = await h.seed.api();
    return { op: "apis.updateApi", body: { apiId, ipWhitelist: ["10.0.0.0/8"] }, resource: () => ({ type: "api", id: apiId }) };
  },
  "keyward.v1.KeysService.CreateKey": async (h) => ({ op: "keys.createKey", body: { apiId: await h.seed.api() }, resource: (d) => ({ type: "key", id: d.keyId }) }),
  "keyward.v1.KeysService.UpdateKey": async (h) => {
    const { keyId } = await keyOf(h);
    return { op: "keys.updateKey", body: { keyId, name: "renamed" }, resource: () => ({ type: "key", id: keyId }) };
  },
  "keyward.v1.KeysService.DeleteKey": async (h) => {
    const { keyId } = await keyOf(h);
    return { op: "keys.deleteKey", body: { keyId }, resource: () => ({ type: "key", id: keyId }) };
  },
  "keyward.v1.KeysService.UpdateCredits": async (h) => {
    const { keyId } = await keyOf(h, { credits: { remaining: 1 } });
    return { op: "keys.updateCredits", body: { keyId, operation: "increment", value: 3 }, resource: () => ({ type: "key", id: keyId }) };
  },
  "keyward.v1.KeysService.RerollKey": async (h) => {
    const { keyId } = await keyOf(h);
    return { op: "keys.rerollKey", body: { keyId, expiration: 60_000 }, resource: (d) => ({ type: "key", id: d.keyId }), actions: ["key.create", "key.reroll"] };
  },
  ...Object.fromEntries(["Add", "Remove", "Set"].flatMap((verb) => ["Permissions", "Roles"].map((what) => [
    `keyward.v1.KeysService.${verb}${what}`,
    (async (h) => {
      const name = unique(what.toLowerCase());
      const { keyId } = await keyOf(h, verb === "Remove" ? { [what.toLowerCase()]: [name] } : {});
      const action = AUDIT_ACTIONS[`keyward.v1.KeysService.${verb}${what}`];
      // Add names a new one, created on demand with its own record.
      const actions = verb === "Add" ? [action, what === "Roles" ? "role.create" : "permission.create"] : [action];
      return { op: `keys.${verb.toLowerCase()}${what}`, body: { keyId, [what.toLowerCase()]: verb === "Set" ? [] : [name] }, resource: () => ({ type: "key", id: keyId }), actions };
    }) satisfies Case,
  ]))),
  "keyward.v1.KeysService.MigrateKeys": async (h) => ({
    op: "keys.migrateKeys", body: { migrationId: "sha256_base64", apiId: await h.seed.api(), keys: [{ hash: foreignKey().base64 }] },
    resource: (d) => ({ type: "key", id: d.migrated[0].keyId }),
  }),
  "keyward.v1.KeysService.EnqueueMigration": async (h) => ({
    op: "keys.enqueueMigration", body: { migrationId: "sha256_hex", apiId: await h.seed.api(), keys: [{ hash: foreignKey().hex }] },
    resource: (d) => ({ type: "migration", id: d.jobId }),
  }),
  "keyward.v1.IdentitiesService.CreateIdentity": async () => ({
    op: "identities.createIdentity", body: { externalId: unique("ext") }, resource: (d) => ({ type: "identity", id: d.identityId }),
  }),
  "keyward.v1.IdentitiesService.UpdateIdentity": async (h) => {
    const externalId = unique("ext");
    const { identityId } = (await h.rest.v2("identities.createIdentity", { externalId }, h.keyward.rootKey)).body.data;
    return { op: "identities.updateIdentity", body: { identity: externalId, meta: { plan: "pro" } }, resource: () => ({ type: "identity", id: identityId }) };
  },
  "keyward.v1.IdentitiesService.DeleteIdentity": async (h) => {
    const externalId = unique("ext");
    const { identityId } = (await h.rest.v2("identities.createIdentity", { externalId }, h.keyward.rootKey)).body.data;
    return { op: "identities.deleteIdentity", body: { identity: identityId }, resource: () => ({ type: "identity", id: identityId }) };
  },
  "keyward.v1.PermissionsService.CreatePermission": async () => {
    const slug = unique("perm");
    return { op: "permissions.createPermission", body: { name: slug, slug }, resource: (d) => ({ type: "permission", id: d.permissionId }) };
  },
  "keyward.v1.PermissionsService.DeletePermission": async (h) => {
    const slug = unique("perm");
    const { permissionId } = (await h.rest.v2("permissions.createPermission", { name: slug, slug }, h.keyward.rootKey)).body.data;
    return { op: "permissions.deletePermission", body: { permission: slug }, resource: () => ({ type: "permission", id: permissionId }) };
  },
  "keyward.v1.PermissionsService.CreateRole": async () => ({ op: "permissions.createRole", body: { name: unique("role") }, resource: (d) => ({ type: "role", id: d.roleId }) }),
  "keyward.v1.PermissionsService.DeleteRole": async (h) => {
    const name = unique("role");
    const { roleId } = (await h.rest.v2("permissions.createRole", { name }, h.keyward.rootKey)).body.data;
    return { op: "permissions.deleteRole", body: { role: name }, resource: () => ({ type: "role", id: roleId }) };
  },
  "keyward.v1.PermissionsService.SetRolePermissions": async (h) => {
    const name = unique("role");
    const { roleId } = (await h.rest.v2("permissions.createRole", { name }, h.keyward.rootKey)).body.data;
    return {
      op: "permissions.setRolePermissions", body: { roleId, permissions: [unique("perm")] }, resource: () => ({ type: "role", id: roleId }),
      actions: ["permission.create", "role.setPermissions"],
    };
  },
  "keyward.v1.RatelimitService.SetOverride": async (h) => {
    await namespace(h);
    return {
      op: "ratelimit.setOverride", body: { namespace: "audited-ns", identifier: "user-1", limit: 5, duration: 1000 },
      resource: (d) => ({ type: "ratelimitOverride", id: d.overrideId }),
    };
  },
  "keyward.v1.RatelimitService.DeleteOverride": async (h) => {
    await namespace(h);
    await h.rest.v2("ratelimit.setOverride", { namespace: "audited-ns", identifier: "user-2", limit: 5, duration: 1000 }, h.keyward.rootKey);
    return { op: "ratelimit.deleteOverride", body: { namespace: "audited-ns", identifier: "user-2" }, resource: () => ({ type: "ratelimitOverride", id: "user-2" }) };
  },
  "keyward.v1.RootKeysService.CreateRootKey": async () => ({
    op: "rootKeys.createRootKey", body: { permissions: ["api.*.read_api"] }, resource: (d) => ({ type: "rootKey", id: d.keyId }),
  }),
  "keyward.v1.RootKeysService.DeleteRootKey": async (h) => {
    const { keyId } = await h.seed.rootKey(["api.*.read_api"]);
    return { op: "rootKeys.deleteRootKey", body: { keyId }, resource: () => ({ type: "rootKey", id: keyId }) };
  },
  "keyward.v1.WorkspacesService.CreateWorkspace": async () => ({
    op: "workspaces.createWorkspace", body: { name: "audited-ws" }, resource: (d) => ({ type: "workspace", id: d.workspaceId }),
    actions: ["rootKey.create", "workspace.create"],
  }),
  "keyward.v1.WebhooksService.CreateWebhook": async () => ({
    op: "webhooks.createWebhook", body: { url: "https://hooks.example.com/audit", events: ["api.delete"] }, resource: (d) => ({ type: "webhook", id: d.webhookId }),
  }),
  "keyward.v1.WebhooksService.UpdateWebhook": async (h) => {
    const webhookId = await webhookOf(h);
    return { op: "webhooks.updateWebhook", body: { webhookId, enabled: false }, resource: () => ({ type: "webhook", id: webhookId }) };
  },
  "keyward.v1.WebhooksService.DeleteWebhook": async (h) => {
    const webhookId = await webhookOf(h);
    return { op: "webhooks.deleteWebhook", body: { webhookId }, resource: () => ({ type: "webhook", id: webhookId }) };
  },
  "keyward.v1.WebhooksService.RotateSecret": async (h) => {
    const webhookId = await webhookOf(h);
    return { op: "webhooks.rotateSecret", body: { webhookId }, resource: () => ({ type: "webhook", id: webhookId }) };
  },
  "keyward.v1.WebhooksService.SendTest": async (h) => {
    const webhookId = await webhookOf(h);
    return { op: "webhooks.sendTest", body: { webhookId }, resource: () => ({ type: "webhook", id: webhookId }) };
  },
  "keyward.v1.WebhooksService.Redeliver": async (h) => {
    const webhookId = await webhookOf(h);
    const { messageId } = (await h.rest.v2("webhooks.sendTest", { webhookId }, h.keyward.rootKey)).body.data;
    return { op: "webhooks.redeliver", body: { webhookId, messageId }, resource: () => ({ type: "webhook", id: webhookId }) };
  },
};

describe("audit log: every state-changing RPC", () => {
  // With an encryption key: webhook endpoints (their secrets are stored encrypted) can be created.
  const harness = useKeyward({ encryptionKey: randomBytes(32) });

  it("the operation table's state-changing RPCs are exactly those with an audit action and a case here", () => {
    const changing = harness.keyward.operations.filter((op) => changesState(op.access)).map(rpcName).sort();
    expect(changing.length).toBeGreaterThan(20);
    expect(changing).toEqual(Object.keys(AUDIT_ACTIONS).sort());
    expect(changing).toEqual(Object.keys(CASES).sort());
  });

  for (const [rpc, make] of Object.entries(CASES)) {
    it(`${rpc} writes one ${AUDIT_ACTIONS[rpc]} record per change: actor, request id, address, agent, resource, no secret`, async () => {
      const { op, body, resource, actions = [AUDIT_ACTIONS[rpc]] } = await make(harness);
      // A fresh root key per case: its records are told apart from the seeding's by actor.
      const { keyId: actor, key: rootKey } = await harness.seed.rootKey(allPermissions());
      const response = await harness.rest.v2(op, body, rootKey, { "user-agent": AGENT });
      expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
      const requestId = response.headers.get("x-request-id");
      const list = await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey);
      expect(list.status).toBe(200);
      const records = list.body.data.filter((r: any) => r.requestId === requestId);
      expect(records.length).toBeGreaterThanOrEqual(1);
      for (const record of records) {
        expect(record).toMatchObject({
          id: expect.stringMatching(/^log_/), time: harness.clock.now(), workspaceId: harness.keyward.workspaceId, actor,
          action: expect.any(String), requestId, remoteAddress: expect.stringMatching(/127\.0\.0\.1$/), userAgent: AGENT,
        });
      }
      expect([...new Set(records.map((r: any) => r.action))].sort()).toEqual([...actions].sort());
      expect(records.flatMap((r: any) => r.resources)).toContainEqual(resource(response.body.data));
      // Nothing secret: not the root key, nor any key or plaintext the response carried.
      const text = JSON.stringify(records);
      expect(text).not.toContain(rootKey);
      if (typeof response.body.data?.key === "string") expect(text).not.toContain(response.body.data.key);
      if (typeof response.body.data?.rootKey?.key === "string") expect(text).not.toContain(response.body.data.rootKey.key);
      if (typeof response.body.data?.secret === "string") expect(text).not.toContain(response.body.data.secret.slice(6));
    });
  }

  it("records address and agent over Connect, gRPC and gRPC-Web too (whichever server path serves the call)", async () => {
    const { keyId: actor, key: rootKey } = await harness.seed.rootKey(allPermissions());
    const transports = rpcTransports(harness.keyward.baseUrl);
    const created: Record<string, string> = {};
    for (const via of ["connect", "grpc", "grpcWeb"] as const) {
      const { apiId } = await rpcClient(ApisService, transports[via])
        .createApi({ name: `audited-${via}` }, { headers: { ...bearer(rootKey).headers, "user-agent": AGENT } });
      created[apiId] = via;
    }
    const records = (await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey)).body.data;
    const seen = records.map((r: any) => ({ via: created[r.resources[0].id], remoteAddress: r.remoteAddress, userAgent: r.userAgent }));
    const expected = (via: string) => ({ via, remoteAddress: expect.stringMatching(/127\.0\.0\.1$/), userAgent: expect.stringContaining(AGENT) });
    expect(seen.sort((a: any, b: any) => a.via.localeCompare(b.via))).toEqual([expected("connect"), expected("grpc"), expected("grpcWeb")]);
  });

  it("a limit or multiLimit call that creates a namespace writes one ratelimitNamespace.create record; later calls write none", async () => {
    const { keyId: actor, key: rootKey } = await harness.seed.rootKey(allPermissions());
    const limit = (namespace: string) => ({ namespace, identifier: "u1", limit: 10, duration: 60_000 });
    const first = await harness.rest.v2("ratelimit.limit", limit("created-by-limit"), rootKey, { "user-agent": AGENT });
    expect(first.body.data.success).toBe(true);
    const multi = await harness.rest.v2("ratelimit.multiLimit", { limits: [limit("created-by-limit"), limit("created-by-multi")] }, rootKey);
    expect(multi.body.data.passed).toBe(true);
    for (let i = 0; i < 3; i++) expect((await harness.rest.v2("ratelimit.limit", limit("created-by-multi"), rootKey)).status).toBe(200);

    const namespaces = (await harness.rest.v2("ratelimit.listNamespaces", { search: "created-by-" }, rootKey)).body.data;
    const idOf = (name: string) => namespaces.find((n: any) => n.name === name).id;
    const records = (await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey)).body.data;
    expect(records.map((r: any) => [r.action, r.requestId, r.resources])).toEqual([
      [NAMESPACE_CREATE_ACTION, first.headers.get("x-request-id"), [{ type: "ratelimitNamespace", id: idOf("created-by-limit") }]],
      [NAMESPACE_CREATE_ACTION, multi.headers.get("x-request-id"), [{ type: "ratelimitNamespace", id: idOf("created-by-multi") }]],
    ]);
    expect(records[0]).toMatchObject({ workspaceId: harness.keyward.workspaceId, remoteAddress: expect.stringMatching(/127\.0\.0\.1$/), userAgent: AGENT });
  });

  it("a limit call refused for a missing permission creates no namespace and writes no record", async () => {
    const { keyId: actor, key: rootKey } = await harness.seed.rootKey(["ratelimit.*.limit"]);
    const refused = await harness.rest.v2("ratelimit.limit", { namespace: "never-created", identifier: "u1", limit: 10, duration: 60_000 }, rootKey);
    expect({ status: refused.status, detail: refused.body.error?.detail }).toEqual({ status: 403, detail: expect.stringContaining("ratelimit.*.create_namespace") });
    expect((await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey)).body.data).toEqual([]);
    expect((await harness.rest.v2("ratelimit.listNamespaces", { search: "never-created" }, harness.keyward.rootKey)).body.data).toEqual([]);
  });
});

