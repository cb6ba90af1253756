import { expect, it } from "vitest";
import type { ApiRecord } from "../../src/store/ports/apis.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { NamedPageQuery } from "../../src/store/ports/pages.js";
import type { RatelimitNamespaceRecord } from "../../src/store/ports/ratelimits.js";

const T = 1_700_000_000_000;

/**
 * ApiStore.list and RatelimitNamespaceStore.list, part of the document contract: runDocumentStoreContract
 * (documents.contract.ts) calls it with its `fresh()` store. Both list a workspace's named records by id, narrowed
 * by a case-insensitive piece of the name and by a set of ids; the same cases run on both.
 */
export function namedListsContract(fresh: () => Promise<DocumentStore>): void {
  const kinds = [
    {
      kind: "apis",
      async seed(store: DocumentStore, n: number, workspaceId: string, name: string) {
        await store.apis.insert(api(n, workspaceId, name));
        return `api_${pad(n)}`;
      },
      list: (store: DocumentStore, workspaceId: string, page: NamedPageQuery) => store.apis.list(workspaceId, page),
      record: (n: number, workspaceId: string, name: string): ApiRecord | RatelimitNamespaceRecord => api(n, workspaceId, name),
    },
    {
      kind: "rate-limit namespaces",
      async seed(store: DocumentStore, n: number, workspaceId: string, name: string) {
        await store.ratelimitNamespaces.insert(namespace(n, workspaceId, name));
        return `rlns_${pad(n)}`;
      },
      list: (store: DocumentStore, workspaceId: string, page: NamedPageQuery) => store.ratelimitNamespaces.list(workspaceId, page),
      record: (n: number, workspaceId: string, name: string): ApiRecord | RatelimitNamespaceRecord => namespace(n, workspaceId, name),
    },
  ];

  for (const { kind, seed, list, record } of kinds) {
    it(`lists the ${kind} of one workspace in id order, page by page, whole records`, async () => {
      const store = await fresh();
      const ids: string[] = [];
      // Inserted out of order: the listing follows the ids, not the inserts.
      for (const n of [3, 1, 8, 2, 5, 7, 4, 6]) ids.push(await seed(store, n, "ws_a", `name-${n}`));
      await seed(store, 9, "ws_b", "name-9");
      const names = async (page: NamedPageQuery) => (await list(store, "ws_a", page)).map((r) => r.name);

      expect(await names({ limit: 3 })).toEqual(["name-1", "name-2", "name-3"]);
      expect(await names({ limit: 3, after: ids[0] })).toEqual(["name-4", "name-5", "name-6"]);
      expect(await names({ limit: 3, after: ids[ids.length - 1] })).toEqual(["name-7", "name-8"]);
      expect(await names({ limit: 100, after: ids[2] })).toEqual([]);
      expect(await names({ limit: 0 })).toEqual([]);
      expect(await list(store, "ws_a", { limit: 1 })).toEqual([record(1, "ws_a", "name-1")]);
      expect(await list(store, "ws_b", { limit: 100 })).toEqual([record(9, "ws_b", "name-9")]);
      expect(await list(store, "ws_c", { limit: 100 })).toEqual([]);
    });

    it(`finds ${kind} by a piece of the name, ignoring case and matched literally, paged by id`, async () => {
      const store = await fresh();
      const names = ["Shop.Checkout", "shop-billing", "globex", "SHOP_ops", "initech", "user(shop)+1"];
      for (const [i, name] of names.entries()) await seed(store, i + 1, "ws_a", name);
      await seed(store, 7, "ws_b", "shop-elsewhere");
      const found = async (search: string, page: { limit: number; after?: string } = { limit: 100 }) =>
        (await list(store, "ws_a", { ...page, search })).map((r) => r.name);

      expect(await found("shop")).toEqual(["Shop.Checkout", "shop-billing", "SHOP_ops", "user(shop)+1"]);
      expect(await found("SHOP", { limit: 2 })).toEqual(["Shop.Checkout", "shop-billing"]);
      const second = (await list(store, "ws_a", { limit: 2, search: "shop" }))[1].id;
      expect(await found("Shop", { limit: 2, after: second })).toEqual(["SHOP_ops", "user(shop)+1"]);
      // Regex characters are text, not patterns.
      expect(await found("(shop)+")).toEqual(["user(shop)+1"]);
      expect(await found(".")).toEqual(["Shop.Checkout"]);
      expect(await found("^shop")).toEqual([]);
      expect(await found("nothing")).toEqual([]);
      // Only the name is searched, never the id.
      expect(await found(pad(5))).toEqual([]);
    });

    it(`narrows ${kind} to a set of ids: only those of the workspace, in id order, with the search and the cursor`, async () => {
      const store = await fresh();
      const ids: string[] = [];
      for (let n = 1; n <= 6; n++) ids.push(await seed(store, n, "ws_a", n % 2 === 0 ? `even-${n}` : `odd-${n}`));
      const foreign = await seed(store, 7, "ws_b", "even-7");
      const granted = [ids[5], ids[0], ids[3], ids[1], ids[3], foreign, `${ids[0].split("_")[0]}_9999`];
      const names = async (page: Omit<NamedPageQuery, "ids">) => (await list(store, "ws_a", { ...page, ids: granted })).map((r) => r.name);

      expect(await names({ limit: 100 })).toEqual(["odd-1", "even-2", "even-4", "even-6"]);
      expect(await names({ limit: 2 })).toEqual(["odd-1", "even-2"]);
      expect(await names({ limit: 2, after: ids[1] })).toEqual(["even-4", "even-6"]);
      expect(await names({ limit: 100, search: "EVEN" })).toEqual(["even-2", "even-4", "even-6"]);
      expect(await names({ limit: 1, search: "even", after: ids[1] })).toEqual(["even-4"]);
      expect(await names({ limit: 0 })).toEqual([]);
      expect(await list(store, "ws_a", { limit: 100, ids: [] })).toEqual([]);
      expect(await list(store, "ws_b", { limit: 100, ids: granted })).toEqual([record(7, "ws_b", "even-7")]);
    });
  }

  it("leaves deleted apis out of every listing", async () => {
    const store = await fresh();
    for (let n = 1; n <= 4; n++) await store.apis.insert(api(n, "ws_a", `api-${n}`));
    expect(await store.apis.markDeleted("ws_a", "api_0002", T + 9)).toBe(true);
    expect(await store.apis.markDeleted("ws_a", "api_0004", T + 9)).toBe(true);
    const names = async (page: NamedPageQuery) => (await store.apis.list("ws_a", page)).map((a) => a.name);
    expect(await names({ limit: 100 })).toEqual(["api-1", "api-3"]);
    expect(await names({ limit: 1, after: "api_0001" })).toEqual(["api-3"]);
    expect(await names({ limit: 100, search: "api-2" })).toEqual([]);
    expect(await names({ limit: 100, ids: ["api_0002", "api_0003"] })).toEqual(["api-3"]);
  });
}

const pad = (n: number) => String(n).padStart(4, "0");

function api(n: number, workspaceId: string, name: string): ApiRecord {
  return { id: `api_${pad(n)}`, workspaceId, name, createdAt: T + n, deleteProtection: false, storeEncryptedKeys: false };
}

function namespace(n: number, workspaceId: string, name: string): RatelimitNamespaceRecord {
  return { id: `rlns_${pad(n)}`, workspaceId, name, createdAt: T + n };
}
