import { expect, it } from "vitest";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { IdentityRecord, KeyRecord } from "../../src/store/ports/key-records.js";

/**
 * The KeyStore and IdentityStore part of the document contract; runDocumentStoreContract (documents.contract.ts)
 * calls it inside its describe, with its `fresh()` that opens a new, empty store closed after each case.
 */
export function keyAndIdentityContract(fresh: () => Promise<DocumentStore>): void {
  it("an inserted key is found by hash anywhere and by id in its workspace, with every field", async () => {
    const store = await fresh();
    const full = key(1, "ws_a", "api_0001", {
      name: "checkout",
      meta: { plan: "pro", limits: { seats: 3 }, tags: ["a", "b"] },
      updatedAt: T + 50,
      expires: T + 86_400_000,
      enabled: false,
      environment: "test",
      identityId: "id_0001",
      credits: { refill: { interval: "monthly", amount: 100, refillDay: 15 } },
      ratelimits: [{ id: "rl_0001", name: "requests", limit: 10, duration: 60_000, autoApply: true }],
      permissions: ["documents.read"],
      roles: ["admin"],
      encrypted: { iv: "aXY=", ciphertext: "Y2lwaGVy", tag: "dGFn" },
    });
    const bare = key(2, "ws_a", "api_0001");
    await store.keys.insert(full);
    await store.keys.insert(bare);
    expect(await store.keys.findByHash("khash_0001")).toEqual(full);
    expect(await store.keys.get("ws_a", "key_0001")).toEqual(full);
    const got = await store.keys.get("ws_a", "key_0002");
    expect(got).toEqual(bare);
    expect(got && Object.keys(got).sort()).toEqual(Object.keys(bare).sort());
    expect(await store.keys.findByHash("khash_0009")).toBeUndefined();
    expect(await store.keys.get("ws_a", "key_0009")).toBeUndefined();
  });

  it("a key of another workspace is never returned by get or lists there, and findByHash names its workspace", async () => {
    const store = await fresh();
    const mine = key(1, "ws_a", "api_0001", { identityId: "id_0001" });
    await store.keys.insert(mine);
    expect(await store.keys.get("ws_b", "key_0001")).toBeUndefined();
    expect(await store.keys.listByApi("ws_b", "api_0001", { limit: 10 })).toEqual([]);
    expect(await store.keys.countByApi("ws_b", "api_0001")).toBe(0);
    expect(await store.keys.listByIdentity("ws_b", "id_0001", { limit: 10 })).toEqual([]);
    expect((await store.keys.findByHash("khash_0001"))?.workspaceId).toBe("ws_a");
    expect(await store.keys.markDeleted("ws_b", "key_0001", T + 9)).toBe(false);
    expect(await store.keys.erase("ws_b", "key_0001")).toBe(false);
    expect(await store.keys.replace({ ...mine, workspaceId: "ws_b", name: "stolen" })).toBe(false);
    expect(await store.keys.get("ws_a", "key_0001")).toEqual(mine);
  });

  it("a soft-deleted key is invisible to findByHash, get, lists and counts; deleting it again answers false", async () => {
    const store = await fresh();
    await store.keys.insert(key(1, "ws_a", "api_0001", { identityId: "id_0001" }));
    await store.keys.insert(key(2, "ws_a", "api_0001", { identityId: "id_0001" }));
    expect(await store.keys.markDeleted("ws_a", "key_0001", T + 9)).toBe(true);
    expect(await store.keys.findByHash("khash_0001")).toBeUndefined();
    expect(await store.keys.get("ws_a", "key_0001")).toBeUndefined();
    expect(ids(await store.keys.listByApi("ws_a", "api_0001", { limit: 10 }))).toEqual(["key_0002"]);
    expect(ids(await store.keys.listByIdentity("ws_a", "id_0001", { limit: 10 }))).toEqual(["key_0002"]);
    expect(await store.keys.countByApi("ws_a", "api_0001")).toBe(1);
    expect(await store.keys.countByApi("ws_a", "api_0001", { identityId: "id_0001" })).toBe(1);
    expect(await store.keys.markDeleted("ws_a", "key_0001", T + 10)).toBe(false);
    expect(await store.keys.markDeleted("ws_a", "key_0009", T + 10)).toBe(false);
  });

  it("replace swaps a live key's record, found by the same hash, and drops fields the replacement omits", async () => {
    const store = await fresh();
    const original = key(1, "ws_a", "api_0001", { name: "old", credits: {}, meta: { a: 1 } });
    await store.keys.insert(original);
    const { credits: _credits, meta: _meta, ...rest } = original;
    const updated: KeyRecord = { ...rest, name: "new", updatedAt: T + 20, roles: ["reader"] };
    expect(await store.keys.replace(updated)).toBe(true);
    const stored = { ...updated, revision: 1 };
    expect(await store.keys.findByHash("khash_0001")).toEqual(stored);
    expect(await store.keys.get("ws_a", "key_0001")).toEqual(stored);
    expect(await store.keys.listByApi("ws_a", "api_0001", { limit: 10 })).toEqual([stored]);
  });

  it("replace is a compare-and-swap on the revision read: it stores revision + 1, and a stale revision changes nothing", async () => {
    const store = await fresh();
    await store.keys.insert(key(1, "ws_a", "api_0001", { name: "v0" }));
    const read = (await store.keys.get("ws_a", "key_0001"))!;
    expect(read.revision ?? 0).toBe(0);
    expect(await store.keys.replace({ ...read, name: "v1" })).toBe(true);
    const first = (await store.keys.get("ws_a", "key_0001"))!;
    expect(first).toMatchObject({ name: "v1", revision: 1 });

    // Still at the revision read before the first write: stale.
    expect(await store.keys.replace({ ...read, name: "stale" })).toBe(false);
    expect(await store.keys.replace({ ...read, name: "stale", revision: 5 })).toBe(false);
    expect(await store.keys.get("ws_a", "key_0001")).toEqual(first);
    expect(await store.keys.findByHash("khash_0001")).toEqual(first);

    expect(await store.keys.replace({ ...first, name: "v2" })).toBe(true);
    expect(await store.keys.get("ws_a", "key_0001")).toMatchObject({ name: "v2", revision: 2 });
  });

  it("two replaces from the same read, concurrently: exactly one wins, and its record is stored", async () => {
    const store = await fresh();
    await store.keys.insert(key(1, "ws_a", "api_0001", { revision: 3 }));
    const read = (await store.keys.get("ws_a", "key_0001"))!;
    const results = await Promise.all([
      store.keys.replace({ ...read, roles: ["a"] }),
      store.keys.replace({ ...read, roles: ["b"] }),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? ["a"] : ["b"];
    expect(await store.keys.get("ws_a", "key_0001")).toEqual({ ...read, roles: winner, revision: 4 });
  });

  it("replace answers false for an unknown or deleted key, or a changed api or hash, and changes nothing", async () => {
    const store = await fresh();
    const stored = key(1, "ws_a", "api_0001");
    await store.keys.insert(stored);
    expect(await store.keys.replace({ ...stored, hash: "khash_0099" })).toBe(false);
    expect(await store.keys.replace({ ...stored, apiId: "api_0002" })).toBe(false);
    expect(await store.keys.findByHash("khash_0099")).toBeUndefined();
    expect(await store.keys.listByApi("ws_a", "api_0002", { limit: 10 })).toEqual([]);
    expect(await store.keys.get("ws_a", "key_0001")).toEqual(stored);

    expect(await store.keys.replace(key(2, "ws_a", "api_0001"))).toBe(false);
    expect(await store.keys.get("ws_a", "key_0002")).toBeUndefined();
    expect(await store.keys.findByHash("khash_0002")).toBeUndefined();

    await store.keys.markDeleted("ws_a", "key_0001", T + 9);
    expect(await store.keys.replace({ ...stored, name: "revived" })).toBe(false);
    expect(await store.keys.get("ws_a", "key_0001")).toBeUndefined();
    expect(await store.keys.findByHash("khash_0001")).toBeUndefined();
  });

  it("a key hash is unique, deleted keys included, until the key is erased", async () => {
    const store = await fresh();
    await store.keys.insert(key(1, "ws_a", "api_0001"));
    const twin = { ...key(2, "ws_b", "api_0002"), hash: "khash_0001" };
    const error = await store.keys.insert(twin).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UniqueViolationError);
    expect(error).toMatchObject({ name: "UniqueViolationError", collection: "keys", index: "hash" });
    expect(await store.keys.get("ws_b", "key_0002")).toBeUndefined();
    expect(await store.keys.findByHash("khash_0001")).toEqual(key(1, "ws_a", "api_0001"));
    const sameId = await store.keys.insert(key(1, "ws_b", "api_0002", { hash: "khash_0777" })).catch((e: unknown) => e);
    expect(sameId).toMatchObject({ name: "UniqueViolationError", collection: "keys", index: "id" });

    await store.keys.markDeleted("ws_a", "key_0001", T + 9);
    await expect(store.keys.insert(twin)).rejects.toMatchObject({ name: "UniqueViolationError", index: "hash" });
    expect(await store.keys.findByHash("khash_0001")).toBeUndefined();

    expect(await store.keys.erase("ws_a", "key_0001")).toBe(true);
    await store.keys.insert(twin);
    expect(await store.keys.findByHash("khash_0001")).toEqual(twin);
  });

  it("erase removes a key, deleted or not; erasing it again answers false", async () => {
    const store = await fresh();
    await store.keys.insert(key(1, "ws_a", "api_0001"));
    await store.keys.insert(key(2, "ws_a", "api_0001"));
    await store.keys.markDeleted("ws_a", "key_0002", T + 9);
    expect(await store.keys.erase("ws_a", "key_0001")).toBe(true);
    expect(await store.keys.erase("ws_a", "key_0002")).toBe(true);
    expect(await store.keys.erase("ws_a", "key_0001")).toBe(false);
    expect(await store.keys.erase("ws_a", "key_0009")).toBe(false);
    expect(await store.keys.get("ws_a", "key_0001")).toBeUndefined();
    expect(await store.keys.findByHash("khash_0001")).toBeUndefined();
    expect(await store.keys.countByApi("ws_a", "api_0001")).toBe(0);
  });

  it("listByApi pages live keys of one api by id: 10, 10, 5, each once; the identity filter and counts agree", async () => {
    const store = await fresh();
    // Out of insert order, mixed with another api, another workspace (same api id) and deleted keys.
    const order = Array.from({ length: 40 }, (_, i) => (i * 7) % 40);
    const home = (n: number) => (n % 8 === 3 ? "api_0002" : "api_0001");
    for (const n of order) {
      const workspaceId = n % 8 === 5 ? "ws_b" : "ws_a";
      await store.keys.insert(key(n, workspaceId, home(n), n % 3 === 0 ? { identityId: "id_0001" } : {}));
    }
    const deleted = [0, 1, 2, 4, 6];
    for (const n of deleted) expect(await store.keys.markDeleted("ws_a", `key_${pad(n)}`, T + 9)).toBe(true);
    const live = order
      .filter((n) => n % 8 !== 5 && home(n) === "api_0001" && !deleted.includes(n))
      .sort((a, b) => a - b)
      .map((n) => `key_${pad(n)}`);
    expect(live).toHaveLength(25);

    const pages: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.keys.listByApi("ws_a", "api_0001", { limit: 10, after });
      if (page.length === 0) break;
      expect(page.every((k) => k.workspaceId === "ws_a" && k.apiId === "api_0001" && k.deletedAt === undefined)).toBe(true);
      pages.push(ids(page));
      after = page[page.length - 1].id;
    }
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(live);
    expect(await store.keys.countByApi("ws_a", "api_0001")).toBe(25);

    const ofIdentity = live.filter((id) => Number(id.slice(4)) % 3 === 0);
    expect(ofIdentity).toEqual(["key_0009", "key_0012", "key_0015", "key_0018", "key_0024", "key_0030", "key_0033", "key_0036", "key_0039"]);
    expect(ids(await store.keys.listByApi("ws_a", "api_0001", { limit: 100, identityId: "id_0001" }))).toEqual(ofIdentity);
    expect(ids(await store.keys.listByApi("ws_a", "api_0001", { limit: 3, after: "key_0012", identityId: "id_0001" }))).toEqual([
      "key_0015",
      "key_0018",
      "key_0024",
    ]);
    expect(await store.keys.countByApi("ws_a", "api_0001", { identityId: "id_0001" })).toBe(9);
    expect(await store.keys.countByApi("ws_a", "api_0001", { identityId: "id_0404" })).toBe(0);
    expect(ids(await store.keys.listByApi("ws_b", "api_0001", { limit: 2 }))).toEqual(["key_0005", "key_0013"]);
    // `deleted`: the api's soft-deleted keys instead, by id, paged the same way (api_0001's deleted ones: 0, 1, 2, 4, 6).
    expect(ids(await store.keys.listByApi("ws_a", "api_0001", { limit: 10, deleted: true }))).toEqual(["key_0000", "key_0001", "key_0002", "key_0004", "key_0006"]);
    expect(ids(await store.keys.listByApi("ws_a", "api_0001", { limit: 2, after: "key_0001", deleted: true }))).toEqual(["key_0002", "key_0004"]);
    expect(await store.keys.listByApi("ws_b", "api_0001", { limit: 10, deleted: true })).toEqual([]);
    expect(await store.keys.listByApi("ws_a", "api_0009", { limit: 10 })).toEqual([]);
    expect(await store.keys.listByApi("ws_a", "api_0001", { limit: 0 })).toEqual([]);
  });

  it("listByIdentity pages the live keys of an identity across its workspace's apis, by id", async () => {
    const store = await fresh();
    for (const n of [4, 1, 3, 2, 5, 6]) {
      await store.keys.insert(key(n, n === 6 ? "ws_b" : "ws_a", n % 2 ? "api_0001" : "api_0002", n === 5 ? {} : { identityId: "id_0001" }));
    }
    await store.keys.markDeleted("ws_a", "key_0003", T + 9);
    expect(ids(await store.keys.listByIdentity("ws_a", "id_0001", { limit: 10 }))).toEqual(["key_0001", "key_0002", "key_0004"]);
    expect(ids(await store.keys.listByIdentity("ws_a", "id_0001", { limit: 1, after: "key_0001" }))).toEqual(["key_0002"]);
    expect(ids(await store.keys.listByIdentity("ws_b", "id_0001", { limit: 10 }))).toEqual(["key_0006"]);
    expect(await store.keys.listByIdentity("ws_a", "id_0002", { limit: 10 })).toEqual([]);
  });

  it("an identity is found by id and by external id in its workspace only", async () => {
    const store = await fresh();
    const full = identity(1, "ws_a", "org:42/user", {
      meta: { tier: "gold", nested: { n: 1 } },
      ratelimits: [{ id: "rl_0001", name: "tokens", limit: 1000, duration: 3_600_000, autoApply: false }],
      updatedAt: T + 5,
    });
    await store.identities.insert(full);
    expect(await store.identities.get("ws_a", "id_0001")).toEqual(full);
    expect(await store.identities.findByExternalId("ws_a", "org:42/user")).toEqual(full);
    expect(await store.identities.get("ws_b", "id_0001")).toBeUndefined();
    expect(await store.identities.findByExternalId("ws_b", "org:42/user")).toBeUndefined();
    expect(await store.identities.findByExternalId("ws_a", "org:42")).toBeUndefined();
    expect(await store.identities.markDeleted("ws_b", "id_0001", T + 9)).toBe(false);
    expect(await store.identities.replace({ ...full, workspaceId: "ws_b" })).toBe(false);
    expect(await store.identities.get("ws_a", "id_0001")).toEqual(full);
  });

  it("an external id is unique among the live identities of a workspace, and free in another workspace", async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "ws_a", "user_1"));
    const error = await store.identities.insert(identity(2, "ws_a", "user_1")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UniqueViolationError);
    expect(error).toMatchObject({ name: "UniqueViolationError", collection: "identities", index: "workspaceId,externalId" });
    expect(await store.identities.get("ws_a", "id_0002")).toBeUndefined();
    expect(await store.identities.count("ws_a")).toBe(1);

    await store.identities.insert(identity(3, "ws_b", "user_1"));
    expect(await store.identities.findByExternalId("ws_b", "user_1")).toEqual(identity(3, "ws_b", "user_1"));
    expect(await store.identities.findByExternalId("ws_a", "user_1")).toEqual(identity(1, "ws_a", "user_1"));
  });

  it("two concurrent inserts of one external id: exactly one succeeds", async () => {
    const store = await fresh();
    const results = await Promise.allSettled([
      store.identities.insert(identity(1, "ws_a", "user_1")),
      store.identities.insert(identity(2, "ws_a", "user_1")),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(await store.identities.count("ws_a")).toBe(1);
  });

  it("a deleted identity is hidden and frees its external id for a new identity", async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "ws_a", "user_1"));
    expect(await store.identities.markDeleted("ws_a", "id_0001", T + 9)).toEqual([]);
    expect(await store.identities.markDeleted("ws_a", "id_0001", T + 10)).toBe(false);
    expect(await store.identities.get("ws_a", "id_0001")).toBeUndefined();
    expect(await store.identities.findByExternalId("ws_a", "user_1")).toBeUndefined();
    expect(await store.identities.replace(identity(1, "ws_a", "user_1", { updatedAt: T + 11 }))).toBe(false);
    expect(await store.identities.get("ws_a", "id_0001")).toBeUndefined();

    await store.identities.insert(identity(2, "ws_a", "user_1"));
    expect(await store.identities.findByExternalId("ws_a", "user_1")).toEqual(identity(2, "ws_a", "user_1"));
    expect(ids(await store.identities.list("ws_a", { limit: 10 }))).toEqual(["id_0002"]);
    expect(await store.identities.count("ws_a")).toBe(1);
  });

  it("replace updates a live identity, may move it to a free external id, and refuses a taken one", async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "ws_a", "user_1"));
    await store.identities.insert(identity(2, "ws_a", "user_2"));
    await store.identities.insert(identity(3, "ws_a", "user_3"));
    await store.identities.markDeleted("ws_a", "id_0003", T + 9);

    const renamed = identity(1, "ws_a", "user_3", { meta: { moved: true }, updatedAt: T + 20 });
    expect(await store.identities.replace(renamed)).toBe(true);
    expect(await store.identities.findByExternalId("ws_a", "user_3")).toEqual({ ...renamed, revision: 1 });
    expect(await store.identities.findByExternalId("ws_a", "user_1")).toBeUndefined();

    const clash = await store.identities.replace(identity(2, "ws_a", "user_3")).catch((e: unknown) => e);
    expect(clash).toMatchObject({ name: "UniqueViolationError", collection: "identities", index: "workspaceId,externalId" });
    expect(await store.identities.get("ws_a", "id_0002")).toEqual(identity(2, "ws_a", "user_2"));
    expect(await store.identities.replace(identity(9, "ws_a", "user_9"))).toBe(false);
    expect(await store.identities.get("ws_a", "id_0009")).toBeUndefined();
  });

  it("identities list live ones of a workspace by id with keyset pagination, and count them", async () => {
    const store = await fresh();
    for (const n of [5, 2, 7, 1, 4, 3, 6]) await store.identities.insert(identity(n, n === 6 ? "ws_b" : "ws_a", `user_${n}`));
    await store.identities.markDeleted("ws_a", "id_0004", T + 9);
    expect(await store.identities.list("ws_a", { limit: 2 })).toEqual([identity(1, "ws_a", "user_1"), identity(2, "ws_a", "user_2")]);
    expect(ids(await store.identities.list("ws_a", { limit: 2, after: "id_0002" }))).toEqual(["id_0003", "id_0005"]);
    expect(ids(await store.identities.list("ws_a", { limit: 2, after: "id_0005" }))).toEqual(["id_0007"]);
    expect(await store.identities.list("ws_a", { limit: 2, after: "id_0007" })).toEqual([]);
    expect(await store.identities.list("ws_a", { limit: 0 })).toEqual([]);
    expect(await store.identities.count("ws_a")).toBe(5);
    expect(await store.identities.count("ws_b")).toBe(1);
    expect(await store.identities.count("ws_c")).toBe(0);
  });

  it("returned keys and identities are copies: changing one changes nothing stored", async () => {
    const store = await fresh();
    await store.keys.insert(key(1, "ws_a", "api_0001", { meta: { a: 1 } }));
    await store.identities.insert(identity(1, "ws_a", "user_1"));
    const got = (await store.keys.findByHash("khash_0001"))!;
    got.permissions.push("x");
    (got.meta as Record<string, unknown>).a = 2;
    const person = (await store.identities.findByExternalId("ws_a", "user_1"))!;
    person.ratelimits.push({ id: "rl_x", name: "x", limit: 1, duration: 1, autoApply: false });
    expect(await store.keys.get("ws_a", "key_0001")).toEqual(key(1, "ws_a", "api_0001", { meta: { a: 1 } }));
    expect(await store.identities.get("ws_a", "id_0001")).toEqual(identity(1, "ws_a", "user_1"));
  });
}

const T = 1_700_000_000_000;

function pad(n: number): string {
  return String(n).padStart(4, "0");
}

function ids(records: Array<{ id: string }>): string[] {
  return records.map((r) => r.id);
}

function key(n: number, workspaceId: string, apiId: string, extra: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: `key_${pad(n)}`,
    workspaceId,
    apiId,
    hash: `khash_${pad(n)}`,
    start: `sk_${pad(n)}`,
    createdAt: T + n,
    enabled: true,
    ratelimits: [],
    permissions: [],
    roles: [],
    ...extra,
  };
}

function identity(n: number, workspaceId: string, externalId: string, extra: Partial<IdentityRecord> = {}): IdentityRecord {
  return { id: `id_${pad(n)}`, workspaceId, externalId, ratelimits: [], createdAt: T + n, ...extra };
}
