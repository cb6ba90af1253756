import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openAuditedDocumentStore, openStores } from "../../src/open-stores.js";
import { mongo, withDatabase } from "../support/mongo.js";

const workspace = (id: string) => ({ id, name: "one client", createdAt: 1 });
const rootKey = (id: string, workspaceId: string) => ({
  id, workspaceId, hash: `hash-${id}`, start: "kw_", permissions: [], createdAt: 1,
});

// Counted on the driver's own class: every MongoDB store of a process must ride one client (one pool, one monitor).
(mongo.url ? describe : describe.skip)(`one MongoClient per process${mongo.skip}`, () => {
  const dirs: string[] = [];
  const freshUrl = () => withDatabase(mongo.url!, `keyward_one_client_${randomUUID().slice(0, 8)}`);
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("the server's stores (documents, events, rate-limit events, audit log) open one client and close it once", async () => {
    const connects = vi.spyOn(MongoClient.prototype, "connect");
    const closes = vi.spyOn(MongoClient.prototype, "close");
    const dataDir = await mkdtemp(join(tmpdir(), "keyward-one-client-"));
    dirs.push(dataDir);
    const stores = await openStores({ dataDir, mongodbUrl: freshUrl() });
    try {
      expect(connects).toHaveBeenCalledTimes(1);
      // Each store works over it: a document write read back, an event flushed and counted, an audit record listed.
      await stores.documents.createWorkspace(workspace("ws_one"), rootKey("key_one", "ws_one"));
      expect(await stores.documents.workspaces.get("ws_one")).toMatchObject({ id: "ws_one" });
      stores.events.record({
        time: 1_000, workspaceId: "ws_one", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: [], creditsSpent: 0,
        latencyMs: 1, requestId: "req_1",
      });
      await stores.events.flush();
      expect(await stores.events.lastUsed("ws_one", ["key_1"])).toEqual(new Map([["key_1", 1_000]]));
      const record = { id: "log_one", time: 1, workspaceId: "ws_one", actor: "cli", action: "api.create", resources: [] };
      await stores.auditLogs!.append(record);
      expect(await stores.auditLogs!.list({ workspaceId: "ws_one" }, { limit: 10 })).toEqual([record]);
      expect(closes).not.toHaveBeenCalled();
    } finally {
      await stores.close();
    }
    expect(connects).toHaveBeenCalledTimes(1);
    expect(closes).toHaveBeenCalledTimes(1);
  });

  it("the CLI's audited store opens one client for documents and audit log and closes it once", async () => {
    const connects = vi.spyOn(MongoClient.prototype, "connect");
    const closes = vi.spyOn(MongoClient.prototype, "close");
    const opened = await openAuditedDocumentStore({ dataDir: "unused", mongodbUrl: freshUrl() });
    try {
      await opened.documents.createWorkspace(workspace("ws_cli"), rootKey("key_cli", "ws_cli"));
      const record = { id: "log_cli", time: 2, workspaceId: "ws_cli", actor: "cli", action: "workspace.create", resources: [] };
      await opened.auditLogs.append(record);
      expect(await opened.auditLogs.list({ workspaceId: "ws_cli" }, { limit: 10 })).toEqual([record]);
    } finally {
      await opened.close();
    }
    expect(connects).toHaveBeenCalledTimes(1);
    expect(closes).toHaveBeenCalledTimes(1);
  });

  it("an unreachable server rejects with the redacted address and leaves no client open", async () => {
    const closes = vi.spyOn(MongoClient.prototype, "close");
    const dataDir = await mkdtemp(join(tmpdir(), "keyward-one-client-"));
    dirs.push(dataDir);
    await expect(
      openStores({ dataDir, mongodbUrl: "mongodb://user:secret@127.0.0.1:1/?serverSelectionTimeoutMS=200" }),
    ).rejects.toThrow(/^cannot connect to MongoDB at mongodb:\/\/\*\*\*@127\.0\.0\.1:1\//);
    expect(closes).toHaveBeenCalledTimes(1);
  });
});
