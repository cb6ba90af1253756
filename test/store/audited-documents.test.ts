import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { find } from "mingo";
import { afterAll, describe, expect, it } from "vitest";
import { auditFilter, auditMatches } from "../../src/store/audit/audit-filters.js";
import { AUDITED_WRITES, auditedDocuments } from "../../src/store/audit/audited-documents.js";
import { createEmbeddedDocumentStore } from "../../src/store/embedded/documents.js";
import type { AuditQuery, AuditRecord } from "../../src/store/ports/audit.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";

/** Methods of the DocumentStore port that only read. Anything else on a sub-store is a write and must be audited. */
const READS = new Set([
  "get", "list", "findByHash", "findByExternalId", "findBySlugs", "findByNames", "findByName", "count", "countByApi",
  "listByApi", "listByIdentity", "search", "countMatching", "candidates", "any", "takenHashes", "unfinished", "all", "expiringBetween",
]);

describe("auditedDocuments", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const open = async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-audited-"));
    dirs.push(dir);
    return createEmbeddedDocumentStore({ dir });
  };

  it("covers every write method of every sub-store of the port (a new write without an audit entry fails here)", async () => {
    const documents = await open();
    const unaudited: string[] = [];
    for (const [store, value] of Object.entries(documents)) {
      // The audit log itself, dashboard sessions (sign-ins, written by src/dashboard, never by an API service), and the
      // webhook outbox (deliveries are not changes).
      const unauditedStores = ["auditLogs", "dashboardSessions", "webhookMessages"];
      // A job runner's hold on a queued import (its lease): bookkeeping of the runner, which writes it unaudited.
      const unauditedWrites = ["migrationJobs.claim"];
      if (typeof value !== "object" || value === null || unauditedStores.includes(store)) continue;
      for (const [method, fn] of Object.entries(value)) {
        if (typeof fn === "function" && !READS.has(method) && !AUDITED_WRITES[store]?.[method] && !unauditedWrites.includes(`${store}.${method}`)) unaudited.push(`${store}.${method}`);
      }
    }
    expect(unaudited).toEqual([]);
    await documents.close();
  });

  it("a soft delete that found nothing and a refused write record nothing; a write records once, in its commit", async () => {
    const documents: DocumentStore = await open();
    let n = 0;
    const scope = auditedDocuments(documents, documents.auditLogs!, {
      workspaceId: "ws_A", actor: "key_root", action: "api.delete", newRecord: () => ({ id: `log_${String(++n).padStart(4, "0")}`, time: n }),
    });
    expect(await scope.documents.apis.markDeleted("ws_A", "api_missing", 1)).toBe(false);
    await scope.documents.apis.insert({ id: "api_1", workspaceId: "ws_A", name: "a", createdAt: 1, deleteProtection: false, storeEncryptedKeys: false });
    await expect(scope.documents.apis.insert({ id: "api_1", workspaceId: "ws_A", name: "b", createdAt: 1, deleteProtection: false, storeEncryptedKeys: false }))
      .rejects.toThrow();
    expect(scope.recorded()).toBe(1);
    const records = await documents.auditLogs!.list({ workspaceId: "ws_A" }, { limit: 10 });
    // A creation is recorded as such, whatever the call's action.
    expect(records.map((r) => [r.action, r.resources])).toEqual([["api.create", [{ type: "api", id: "api_1" }]]]);
    // Reads pass through unchanged.
    expect((await scope.documents.apis.get("ws_A", "api_1"))?.name).toBe("a");
    await documents.close();
  });
});

describe("auditedDocuments: one record per document a write touches", () => {
  it("two permissions in one insert and a key replace linking a new identity: a record each, in the write's commit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-audited-"));
    const documents: DocumentStore = await createEmbeddedDocumentStore({ dir });
    let n = 0;
    const scope = auditedDocuments(documents, documents.auditLogs!, {
      workspaceId: "ws_A", actor: "key_root", action: "key.update", newRecord: () => ({ id: `log_${String(++n).padStart(4, "0")}`, time: n }),
    });
    const commits: number[] = [];
    const journalRecords = async () => (await documents.auditLogs!.list({ workspaceId: "ws_A" }, { limit: 50 })).length;
    await scope.documents.permissions.insert([
      { id: "perm_1", workspaceId: "ws_A", name: "a", slug: "a", createdAt: 1 }, { id: "perm_2", workspaceId: "ws_A", name: "b", slug: "b", createdAt: 1 },
    ]);
    commits.push(await journalRecords());
    await scope.documents.apis.insert({ id: "api_1", workspaceId: "ws_A", name: "a", createdAt: 1, deleteProtection: false, storeEncryptedKeys: false });
    const key = { id: "key_1", workspaceId: "ws_A", apiId: "api_1", hash: "h", start: "s", createdAt: 1, enabled: true, permissions: [], roles: [], ratelimits: [] };
    await documents.keys.insert(key as never);
    const stored = (await documents.keys.get("ws_A", "key_1"))!;
    const identity = { id: "id_1", workspaceId: "ws_A", externalId: "e", createdAt: 1, ratelimits: [] };
    expect(await scope.documents.keys.replace({ ...stored, identityId: "id_1" }, { newIdentity: identity as never })).toBe(true);
    expect(scope.recorded()).toBe(5);
    const records = await documents.auditLogs!.list({ workspaceId: "ws_A" }, { limit: 50 });
    expect(records.map((r) => [r.action, r.resources])).toEqual([
      ["permission.create", [{ type: "permission", id: "perm_1" }]],
      ["permission.create", [{ type: "permission", id: "perm_2" }]],
      ["api.create", [{ type: "api", id: "api_1" }]],
      ["key.update", [{ type: "key", id: "key_1" }]],
      ["identity.create", [{ type: "identity", id: "id_1" }]],
    ]);
    expect(commits).toEqual([2]);
    await documents.close();
    await rm(dir, { recursive: true, force: true });
  });
});

describe("audit filters", () => {
  const records: AuditRecord[] = [];
  for (let i = 0; i < 60; i++) {
    records.push({
      id: `log_${String(i).padStart(3, "0")}`, time: 1000 + i, workspaceId: i % 5 === 0 ? "ws_B" : "ws_A", actor: i % 3 === 0 ? "cli" : `key_${i % 2}`,
      action: ["key.create", "key.delete", "api.create"][i % 3], resources: [{ type: i % 2 ? "key" : "api", id: `r_${i % 4}` }],
    });
  }
  const queries: AuditQuery[] = [
    { workspaceId: "ws_A" }, { workspaceId: "ws_B", actor: "cli" }, { workspaceId: "ws_A", start: 1010, end: 1030 },
    { workspaceId: "ws_A", actions: ["key.delete", "api.create"] }, { workspaceId: "ws_A", resourceType: "key" },
    { workspaceId: "ws_A", resourceId: "r_2" }, { workspaceId: "ws_A", resourceType: "key", resourceId: "r_1", actor: "key_1" },
  ];

  it("the MongoDB filter (run with mingo) selects exactly what the in-memory match selects, after a cursor too", () => {
    const documents = records.map(({ id, ...rest }) => ({ _id: id, ...rest }));
    for (const query of queries) {
      for (const after of [undefined, "log_020"]) {
        const viaMongo = find(documents, auditFilter(query, after)).all().map((d) => (d as { _id: string })._id).sort();
        const inMemory = records.filter((r) => auditMatches(r, query) && (after === undefined || r.id > after)).map((r) => r.id);
        expect(viaMongo).toEqual(inMemory);
        expect(inMemory.length).toBeGreaterThan(0);
      }
    }
  });
});
