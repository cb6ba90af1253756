import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDocumentStore } from "../../src/open-stores.js";
import { keyward, keywardJson, tempDataDir } from "./keyward-cli.js";

describe("keyward CLI changes are audited", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  beforeAll(async () => {
    dirs = await tempDataDir();
  });
  afterAll(() => dirs.remove());

  it("workspace create (two: workspace and root key), root-key create and revoke each write one record per document with actor cli; list writes none; no secret", async () => {
    const workspace = await keywardJson(["workspace", "create", "--name", "audited"], dirs);
    const created = await keywardJson(["root-key", "create", "--workspace", workspace.workspaceId, "--permission", "api.*.read_api"], dirs);
    expect((await keyward(["root-key", "list", "--workspace", workspace.workspaceId], dirs)).code).toBe(0);
    expect((await keyward(["root-key", "revoke", "--workspace", workspace.workspaceId, "--id", created.keyId], dirs)).code).toBe(0);

    const documents = await openDocumentStore({ dataDir: dirs.dataDir });
    try {
      const records = await documents.auditLogs!.list({ workspaceId: workspace.workspaceId }, { limit: 100 });
      expect(records.map((r) => ({ actor: r.actor, action: r.action, resources: r.resources, workspaceId: r.workspaceId }))).toEqual([
        // One record per document: the workspace, and its first root key (created in the same write).
        { actor: "cli", action: "workspace.create", workspaceId: workspace.workspaceId, resources: [{ type: "workspace", id: workspace.workspaceId }] },
        { actor: "cli", action: "rootKey.create", workspaceId: workspace.workspaceId, resources: [{ type: "rootKey", id: workspace.rootKey.keyId }] },
        { actor: "cli", action: "rootKey.create", workspaceId: workspace.workspaceId, resources: [{ type: "rootKey", id: created.keyId }] },
        { actor: "cli", action: "rootKey.delete", workspaceId: workspace.workspaceId, resources: [{ type: "rootKey", id: created.keyId }] },
      ]);
      expect(records.every((r) => r.id.startsWith("log_") && r.requestId === undefined)).toBe(true);
      const text = JSON.stringify(records);
      expect(text).not.toContain(workspace.rootKey.key);
      expect(text).not.toContain(created.key);
    } finally {
      await documents.close();
    }
  });
});
