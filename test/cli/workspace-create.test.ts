import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashKey } from "../../src/domain/key-material.js";
import { allPermissions } from "../../src/domain/permissions.js";
import { openDocumentStore } from "../../src/open-stores.js";
import { keyward, keywardJson, tempDataDir } from "./keyward-cli.js";

describe("keyward workspace create", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  beforeEach(async () => void (dirs = await tempDataDir()));
  afterEach(() => dirs.remove());

  it("creates the workspace and a first root key holding every permission, stored only as a hash", async () => {
    const created = await keywardJson(["workspace", "create", "--name", "acme"], dirs);
    expect(Object.keys(created).sort()).toEqual(["name", "rootKey", "workspaceId"]);
    expect(created.workspaceId).toMatch(/^ws_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(created.name).toBe("acme");
    expect(created.rootKey.keyId).toMatch(/^key_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(created.rootKey.key).toMatch(/^kw_root_[1-9A-HJ-NP-Za-km-z]{40,}$/);

    const documents = await openDocumentStore({ dataDir: dirs.dataDir });
    try {
      expect(await documents.workspaces.get(created.workspaceId)).toEqual({
        id: created.workspaceId,
        name: "acme",
        createdAt: expect.any(Number),
      });
      const record = await documents.rootKeys.get(created.workspaceId, created.rootKey.keyId);
      expect(record?.hash).toBe(hashKey(created.rootKey.key));
      expect(record?.start).toBe(created.rootKey.key.slice(0, 12));
      expect(record?.permissions).toEqual(allPermissions());
      expect(JSON.stringify(record)).not.toContain(created.rootKey.key);
    } finally {
      await documents.close();
    }
  });

  it("prints the workspace id, key id and the key itself in text mode, exiting 0", async () => {
    const result = await keyward(["workspace", "create", "--name", "text mode"], dirs);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^Created workspace ws_\\w+ \\(text mode\\) in the embedded store in ${dirs.dataDir}\\.$`));
    expect(lines[1]).toMatch(/^Its root key key_\w+ holds every permission\. It is shown only this once; store it now:$/);
    expect(lines[2]).toMatch(/^ {2}kw_root_\w{40,}$/);
  });

  it("refuses a missing --name with exit 1 and creates nothing, not even the data dir", async () => {
    const result = await keyward(["workspace", "create"], dirs);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("keyward: workspace create: --name is required\nRun `keyward help` for usage.\n");
    expect(existsSync(dirs.dataDir)).toBe(false);
  });

  it("refuses a name over 255 characters with exit 1", async () => {
    const result = await keyward(["workspace", "create", "--name", "x".repeat(256)], dirs);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("keyward: workspace create: --name must be 1 to 255 characters");
    expect(existsSync(dirs.dataDir)).toBe(false);
  });
});
