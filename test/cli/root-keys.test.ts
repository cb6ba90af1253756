import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hashKey } from "../../src/domain/key-material.js";
import { openDocumentStore } from "../../src/open-stores.js";
import { mintRootKey } from "../../src/services/root-keys-service.js";
import { keyward, keywardJson, tempDataDir } from "./keyward-cli.js";

describe("keyward root-key create / list / revoke", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  let workspace: { workspaceId: string; rootKey: { keyId: string; key: string } };
  beforeAll(async () => {
    dirs = await tempDataDir();
    workspace = await keywardJson(["workspace", "create", "--name", "acme"], dirs);
  });
  afterAll(() => dirs.remove());

  it("creates a restricted key, lists it without any secret, revokes it, and lists it no more", async () => {
    const expires = Date.now() + 86_400_000;
    const created = await keyward([
      "root-key", "create", "--workspace", workspace.workspaceId,
      "--permission", "api.*.read_api", "--permission", "api.*.verify_key,rootkey.*.read_root_key",
      "--name", "ci deployer", "--expires", String(expires),
    ], dirs);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe("");
    const [line1, line2] = created.stdout.trimEnd().split("\n");
    const keyId = /^Created root key (key_\w+) in workspace (ws_\w+)\./.exec(line1)?.[1];
    expect(line1).toContain(`in workspace ${workspace.workspaceId}.`);
    const key = line2.trim();
    expect(key).toMatch(/^kw_root_\w{40,}$/);
    expect(keyId).toBeDefined();

    const text = await keyward(["root-key", "list", "--workspace", workspace.workspaceId], dirs);
    expect(text.code).toBe(0);
    const rows = text.stdout.trimEnd().split("\n");
    expect(rows).toHaveLength(3);
    expect(rows[0].split(/\s{2,}/)).toEqual(["ID", "NAME", "START", "CREATED", "EXPIRES", "PERMISSIONS"]);
    expect(rows[1].startsWith(workspace.rootKey.keyId)).toBe(true);
    expect(rows[2].split(/\s{2,}/)).toEqual([
      keyId,
      "ci deployer",
      `${key.slice(0, 12)}…`,
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      new Date(expires).toISOString(),
      "api.*.read_api,api.*.verify_key,rootkey.*.read_root_key",
    ]);

    const listed = await keywardJson(["root-key", "list", "--workspace", workspace.workspaceId], dirs);
    expect(listed.rootKeys.map((k: { keyId: string }) => k.keyId)).toEqual([workspace.rootKey.keyId, keyId]);
    expect(listed.rootKeys[1]).toEqual({
      keyId,
      name: "ci deployer",
      start: key.slice(0, 12),
      permissions: ["api.*.read_api", "api.*.verify_key", "rootkey.*.read_root_key"],
      createdAt: expect.any(Number),
      expires,
    });
    for (const output of [text.stdout, text.stderr, JSON.stringify(listed)]) {
      expect(output).not.toContain(key);
      expect(output).not.toContain(workspace.rootKey.key);
    }

    const revoked = await keyward(["root-key", "revoke", "--workspace", workspace.workspaceId, "--id", keyId!], dirs);
    expect(revoked).toEqual({ code: 0, stdout: `Revoked root key ${keyId} of workspace ${workspace.workspaceId}.\n`, stderr: "" });

    const after = await keywardJson(["root-key", "list", "--workspace", workspace.workspaceId], dirs);
    expect(after.rootKeys.map((k: { keyId: string }) => k.keyId)).toEqual([workspace.rootKey.keyId]);

    const again = await keyward(["root-key", "revoke", "--workspace", workspace.workspaceId, "--id", keyId!], dirs);
    expect(again).toEqual({
      code: 1,
      stdout: "",
      stderr: `keyward: workspace ${workspace.workspaceId} has no live root key ${keyId}\n`,
    });
  });

  it("lists every live key of the workspace across pages, and none of another workspace", async () => {
    const other = await keywardJson(["workspace", "create", "--name", "paging"], dirs);
    // 150 keys straight into the store (spawning the CLI 150 times would only be slow); the store is closed
    // again before the CLI opens it.
    const documents = await openDocumentStore({ dataDir: dirs.dataDir });
    const ids = [other.rootKey.keyId];
    try {
      for (let i = 0; i < 150; i++) {
        const { record } = mintRootKey({
          workspaceId: other.workspaceId,
          permissions: ["api.*.read_api"],
          name: `bulk-${i}`,
          now: Date.now(),
          randomBytes: (size) => new Uint8Array(randomBytes(size)),
        });
        await documents.rootKeys.insert(record);
        ids.push(record.id);
      }
    } finally {
      await documents.close();
    }
    const listed = await keywardJson(["root-key", "list", "--workspace", other.workspaceId], dirs);
    expect(listed.workspaceId).toBe(other.workspaceId);
    expect(listed.rootKeys.map((k: { keyId: string }) => k.keyId)).toEqual([...ids].sort());
    expect(listed.rootKeys.map((k: { keyId: string }) => k.keyId)).not.toContain(workspace.rootKey.keyId);
  });

  it("says so when a workspace has no live root keys", async () => {
    const lonely = await keywardJson(["workspace", "create", "--name", "lonely"], dirs);
    expect((await keyward(["root-key", "revoke", "--workspace", lonely.workspaceId, "--id", lonely.rootKey.keyId], dirs)).code).toBe(0);
    const result = await keyward(["root-key", "list", "--workspace", lonely.workspaceId], dirs);
    expect(result).toEqual({ code: 0, stdout: `Workspace ${lonely.workspaceId} has no live root keys.\n`, stderr: "" });
    expect(await keywardJson(["root-key", "list", "--workspace", lonely.workspaceId], dirs)).toEqual({
      workspaceId: lonely.workspaceId,
      rootKeys: [],
    });
  });

  it("with REDIS_URL, announces a revocation on the servers' invalidation channel, so their caches drop the key", async () => {
    const created = await keywardJson(["root-key", "create", "--workspace", workspace.workspaceId, "--permission", "api.*.read_api"], dirs);
    const subscriber = new Redis(inject("redisUrl"));
    try {
      const messages: unknown[] = [];
      subscriber.on("message", (_channel: string, text: string) => messages.push(JSON.parse(text)));
      await subscriber.subscribe("keyward:invalidate");
      const revoked = await keyward(
        ["root-key", "revoke", "--workspace", workspace.workspaceId, "--id", created.keyId],
        { ...dirs, env: { REDIS_URL: inject("redisUrl") } },
      );
      expect(revoked).toEqual({ code: 0, stdout: `Revoked root key ${created.keyId} of workspace ${workspace.workspaceId}.\n`, stderr: "" });
      for (let waited = 0; messages.length === 0 && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
      expect(messages).toEqual([{ kind: "hash", hash: hashKey(created.key) }]);
    } finally {
      subscriber.disconnect();
    }
  });

  it("with Redis unreachable, still revokes, and says running servers refuse the key within their cache's TTL", async () => {
    const created = await keywardJson(["root-key", "create", "--workspace", workspace.workspaceId, "--permission", "api.*.read_api"], dirs);
    const revoked = await keyward(
      ["root-key", "revoke", "--workspace", workspace.workspaceId, "--id", created.keyId],
      { ...dirs, env: { REDIS_URL: "redis://127.0.0.1:1" } },
    );
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`Revoked root key ${created.keyId} of workspace ${workspace.workspaceId}.\n`);
    expect(revoked.stderr).toMatch(/^keyward: revoked, but running servers could not be told over Redis \(.+\); they refuse the key within 10 s\n$/);
    const after = await keywardJson(["root-key", "list", "--workspace", workspace.workspaceId], dirs);
    expect(after.rootKeys.map((k: { keyId: string }) => k.keyId)).not.toContain(created.keyId);
  });
});
