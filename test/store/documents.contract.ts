import { afterEach, describe, expect, it } from "vitest";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { ApiRecord } from "../../src/store/ports/apis.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { RootKeyRecord } from "../../src/store/ports/root-keys.js";
import type { WorkspaceRecord } from "../../src/store/ports/workspaces.js";
import { identityLinkContract } from "./documents-identity-links.contract.js";
import { keyAndIdentityContract } from "./documents-keys.contract.js";
import { importContract } from "./documents-imports.contract.js";
import { identitySearchContract } from "./identity-search.contract.js";
import { namedListsContract } from "./named-lists.contract.js";
import { ratelimitContract } from "./documents-ratelimits.contract.js";
import { dashboardSessionsContract } from "./documents-sessions.contract.js";
import { webhooksContract } from "./documents-webhooks.contract.js";
import { rbacContract, skipNote } from "./documents-rbac.contract.js";
import { revisionContract } from "./documents-revisions.contract.js";

/**
 * The behavioural contract of the document ports (src/store/ports/). Every adapter runs it:
 * `runDocumentStoreContract("embedded", open)`. `open` must return a new, EMPTY store on every call (fresh temp
 * dir, fresh database); the suite closes each store it opened. Ids are zero-padded counters, so their string
 * order is their creation order, as with real ids. `options.gaps.rollback` names why the backend cannot show an
 * aborted transaction leaving nothing behind (the mongo emulator posing as a replica set): those cases skip, saying so.
 */
export function runDocumentStoreContract(
  label: string,
  open: () => Promise<DocumentStore>,
  options: { gaps?: { rollback?: string } } = {},
): void {
  const gaps = options.gaps ?? {};
  describe(`document store contract: ${label}`, () => {
    const opened: DocumentStore[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });
    async function fresh(): Promise<DocumentStore> {
      const store = await open();
      opened.push(store);
      return store;
    }

    it("an inserted api is found in its workspace with every field, optional ones included", async () => {
      const store = await fresh();
      const full = api(1, "ws_a", { updatedAt: 1_700_000_000_500, ipWhitelist: ["10.0.0.1", "10.0.0.2"] });
      const bare = api(2, "ws_a");
      await store.apis.insert(full);
      await store.apis.insert(bare);
      expect(await store.apis.get("ws_a", "api_0001")).toEqual(full);
      const got = await store.apis.get("ws_a", "api_0002");
      expect(got).toEqual(bare);
      expect(got?.deletedAt).toBeUndefined();
      expect(got?.ipWhitelist).toBeUndefined();
      expect(await store.apis.get("ws_a", "api_0003")).toBeUndefined();
    });

    it("an api of another workspace is neither found nor deletable there", async () => {
      const store = await fresh();
      await store.apis.insert(api(1, "ws_a"));
      expect(await store.apis.get("ws_b", "api_0001")).toBeUndefined();
      expect(await store.apis.markDeleted("ws_b", "api_0001", 1_700_000_009_000)).toBe(false);
      expect(await store.apis.get("ws_a", "api_0001")).toEqual(api(1, "ws_a"));
    });

    it("a soft-deleted api is hidden, and deleting it again answers false", async () => {
      const store = await fresh();
      await store.apis.insert(api(1, "ws_a"));
      await store.apis.insert(api(2, "ws_a"));
      expect(await store.apis.markDeleted("ws_a", "api_0001", 1_700_000_009_000)).toBe(true);
      expect(await store.apis.get("ws_a", "api_0001")).toBeUndefined();
      expect(await store.apis.markDeleted("ws_a", "api_0001", 1_700_000_009_001)).toBe(false);
      expect(await store.apis.markDeleted("ws_a", "api_0009", 1_700_000_009_001)).toBe(false);
      expect(await store.apis.get("ws_a", "api_0002")).toEqual(api(2, "ws_a"));
    });

    it("two concurrent soft deletes of one record: exactly one answers true", async () => {
      const store = await fresh();
      await store.apis.insert(api(1, "ws_a"));
      const results = await Promise.all([
        store.apis.markDeleted("ws_a", "api_0001", 1_700_000_009_000),
        store.apis.markDeleted("ws_a", "api_0001", 1_700_000_009_000),
      ]);
      expect(results.filter(Boolean)).toEqual([true]);
    });

    it("a second insert with a taken id is refused with UniqueViolationError and changes nothing", async () => {
      const store = await fresh();
      await store.apis.insert(api(1, "ws_a"));
      const error = await store.apis.insert({ ...api(1, "ws_b"), name: "intruder" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UniqueViolationError);
      expect((error as Error).name).toBe("UniqueViolationError");
      expect(await store.apis.get("ws_a", "api_0001")).toEqual(api(1, "ws_a"));
      expect(await store.apis.get("ws_b", "api_0001")).toBeUndefined();
    });

    it("a root key is found by id in its workspace and by hash anywhere", async () => {
      const store = await fresh();
      const key = rootKey(1, "ws_a", { name: "ops", expiresAt: 1_800_000_000_000 });
      await store.rootKeys.insert(key);
      expect(await store.rootKeys.get("ws_a", "key_0001")).toEqual(key);
      expect(await store.rootKeys.get("ws_b", "key_0001")).toBeUndefined();
      expect(await store.rootKeys.findByHash("hash_0001")).toEqual(key);
      expect(await store.rootKeys.findByHash("hash_9999")).toBeUndefined();
    });

    it("a soft-deleted root key leaves get and list, but findByHash still returns it with deletedAt", async () => {
      const store = await fresh();
      await store.rootKeys.insert(rootKey(1, "ws_a"));
      await store.rootKeys.insert(rootKey(2, "ws_a"));
      expect(await store.rootKeys.markDeleted("ws_b", "key_0001", 1_700_000_009_000)).toBe(false);
      expect(await store.rootKeys.markDeleted("ws_a", "key_0001", 1_700_000_009_000)).toBe(true);
      expect(await store.rootKeys.markDeleted("ws_a", "key_0001", 1_700_000_009_001)).toBe(false);
      expect(await store.rootKeys.get("ws_a", "key_0001")).toBeUndefined();
      expect(ids(await store.rootKeys.list("ws_a", { limit: 100 }))).toEqual(["key_0002"]);
      expect(await store.rootKeys.findByHash("hash_0001")).toEqual({ ...rootKey(1, "ws_a"), deletedAt: 1_700_000_009_000 });
    });

    it("a root key hash is unique, deleted keys included: the duplicate is refused and nothing changes", async () => {
      const store = await fresh();
      await store.rootKeys.insert(rootKey(1, "ws_a"));
      const twin = { ...rootKey(2, "ws_b"), hash: "hash_0001" };
      const error = await store.rootKeys.insert(twin).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UniqueViolationError);
      expect((error as Error).name).toBe("UniqueViolationError");
      expect(await store.rootKeys.get("ws_b", "key_0002")).toBeUndefined();
      expect(await store.rootKeys.findByHash("hash_0001")).toEqual(rootKey(1, "ws_a"));

      await store.rootKeys.markDeleted("ws_a", "key_0001", 1_700_000_009_000);
      await expect(store.rootKeys.insert(twin)).rejects.toMatchObject({ name: "UniqueViolationError" });
      expect(await store.rootKeys.list("ws_b", { limit: 100 })).toEqual([]);
    });

    it("root keys list live keys of one workspace by id; pages of 10 over 25 give 10, 10, 5, each once, in order", async () => {
      const store = await fresh();
      // Inserted out of order, interleaved with another workspace's keys and with keys deleted afterwards.
      const order = Array.from({ length: 30 }, (_, i) => (i * 7) % 30);
      for (const n of order) await store.rootKeys.insert(rootKey(n, n % 6 === 5 ? "ws_b" : "ws_a"));
      await store.rootKeys.markDeleted("ws_a", "key_0000", 1_700_000_009_000);
      const live = order
        .filter((n) => n % 6 !== 5 && n !== 0)
        .sort((a, b) => a - b)
        .map((n) => `key_${pad(n)}`);
      expect(live).toHaveLength(24);
      await store.rootKeys.insert(rootKey(40, "ws_a"));
      live.push("key_0040");

      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.rootKeys.list("ws_a", { limit: 10, after });
        if (page.length === 0) break;
        expect(page.every((k) => k.workspaceId === "ws_a" && k.deletedAt === undefined)).toBe(true);
        pages.push(ids(page));
        after = page[page.length - 1].id;
      }
      expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
      expect(pages.flat()).toEqual(live);
      expect(ids(await store.rootKeys.list("ws_b", { limit: 3, after: "key_0005" }))).toEqual(["key_0011", "key_0017", "key_0023"]);
      expect(await store.rootKeys.list("ws_c", { limit: 10 })).toEqual([]);
    });

    it("createWorkspace stores the workspace and its first root key together", async () => {
      const store = await fresh();
      const ws = workspace(1);
      const key = rootKey(1, ws.id);
      await store.createWorkspace(ws, key);
      expect(await store.workspaces.get("ws_0001")).toEqual(ws);
      expect(await store.rootKeys.get("ws_0001", "key_0001")).toEqual(key);
      expect(await store.rootKeys.findByHash("hash_0001")).toEqual(key);
    });

    it.skipIf(gaps.rollback !== undefined)(`createWorkspace is atomic: a taken root-key hash or workspace id leaves nothing behind${skipNote(gaps.rollback)}`, async () => {
      const store = await fresh();
      await store.createWorkspace(workspace(1), rootKey(1, "ws_0001"));

      const hashTaken = await store.createWorkspace(workspace(2), { ...rootKey(2, "ws_0002"), hash: "hash_0001" }).catch((e: unknown) => e);
      expect((hashTaken as Error).name).toBe("UniqueViolationError");
      expect(await store.workspaces.get("ws_0002")).toBeUndefined();
      expect(await store.rootKeys.get("ws_0002", "key_0002")).toBeUndefined();

      const idTaken = await store.createWorkspace({ ...workspace(1), name: "again" }, rootKey(3, "ws_0001")).catch((e: unknown) => e);
      expect((idTaken as Error).name).toBe("UniqueViolationError");
      expect(await store.workspaces.get("ws_0001")).toEqual(workspace(1));
      expect(await store.rootKeys.findByHash("hash_0003")).toBeUndefined();
      expect(ids(await store.workspaces.list({ limit: 10 }))).toEqual(["ws_0001"]);
    });

    it("workspaces list by id with keyset pagination", async () => {
      const store = await fresh();
      for (const n of [3, 1, 4, 2, 5]) await store.createWorkspace(workspace(n), rootKey(n, `ws_${pad(n)}`));
      expect(await store.workspaces.list({ limit: 2 })).toEqual([workspace(1), workspace(2)]);
      expect(ids(await store.workspaces.list({ limit: 2, after: "ws_0002" }))).toEqual(["ws_0003", "ws_0004"]);
      expect(ids(await store.workspaces.list({ limit: 2, after: "ws_0004" }))).toEqual(["ws_0005"]);
      expect(await store.workspaces.list({ limit: 2, after: "ws_0005" })).toEqual([]);
    });

    it("any() is false on an empty store and true once a root key exists, deleted or not", async () => {
      const store = await fresh();
      expect(await store.rootKeys.any()).toBe(false);
      await store.apis.insert(api(1, "ws_a"));
      expect(await store.rootKeys.any()).toBe(false);
      await store.rootKeys.insert(rootKey(1, "ws_a"));
      expect(await store.rootKeys.any()).toBe(true);
      await store.rootKeys.markDeleted("ws_a", "key_0001", 1_700_000_009_000);
      expect(await store.rootKeys.any()).toBe(true);
    });

    it("returned records are copies: changing one changes nothing stored", async () => {
      const store = await fresh();
      await store.rootKeys.insert(rootKey(1, "ws_a"));
      const got = (await store.rootKeys.get("ws_a", "key_0001"))!;
      got.permissions.push("workspace.*.create_workspace");
      got.name = "changed";
      expect(await store.rootKeys.get("ws_a", "key_0001")).toEqual(rootKey(1, "ws_a"));
    });

    it("ping() resolves while the backend answers", async () => {
      const store = await fresh();
      await expect(store.ping()).resolves.toBeUndefined();
    });

    keyAndIdentityContract(fresh);
    importContract(fresh, gaps);
    identityLinkContract(fresh, gaps);
    identitySearchContract(fresh);
    namedListsContract(fresh);
    ratelimitContract(fresh);
    rbacContract(fresh, gaps);
    revisionContract(fresh);
    dashboardSessionsContract(fresh);
    webhooksContract(fresh);
  });
}

function pad(n: number): string {
  return String(n).padStart(4, "0");
}

function ids(records: Array<{ id: string }>): string[] {
  return records.map((r) => r.id);
}

function workspace(n: number): WorkspaceRecord {
  return { id: `ws_${pad(n)}`, name: `workspace ${n}`, createdAt: 1_700_000_000_000 + n };
}

function api(n: number, workspaceId: string, extra: Partial<ApiRecord> = {}): ApiRecord {
  return {
    id: `api_${pad(n)}`,
    workspaceId,
    name: `api ${n}`,
    createdAt: 1_700_000_000_000 + n,
    deleteProtection: n % 2 === 0,
    storeEncryptedKeys: false,
    ...extra,
  };
}

function rootKey(n: number, workspaceId: string, extra: Partial<RootKeyRecord> = {}): RootKeyRecord {
  return {
    id: `key_${pad(n)}`,
    workspaceId,
    hash: `hash_${pad(n)}`,
    start: `kw_${pad(n)}`,
    permissions: ["api.*.create_api", `api.api_${pad(n)}.read_api`],
    createdAt: 1_700_000_000_000 + n,
    ...extra,
  };
}
