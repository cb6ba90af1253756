import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedDocumentStore } from "../../src/store/embedded/documents.js";
import { openJournal, type CollectionSpec, type Journal } from "../../src/store/embedded/journal.js";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { ApiRecord } from "../../src/store/ports/apis.js";
import type { IdentityRecord, KeyRecord } from "../../src/store/ports/key-records.js";
import { runDocumentStoreContract } from "./documents.contract.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-embedded-"));
  dirs.push(dir);
  return dir;
}

runDocumentStoreContract("embedded", async () => createEmbeddedDocumentStore({ dir: await tempDir() }));

const collections: Record<string, CollectionSpec> = {
  things: { unique: { slug: (d) => d.slug }, indexes: { group: (d) => d.group } },
  others: {},
};
type Thing = { id: string; slug?: string; group?: string; n: number };
const thing = (n: number, extra: Partial<Thing> = {}): Thing => ({ id: `t_${String(n).padStart(4, "0")}`, n, ...extra });

function api(n: number): ApiRecord {
  return { id: `api_${String(n).padStart(4, "0")}`, workspaceId: "ws_a", name: `api ${n}`, createdAt: n, deleteProtection: false, storeEncryptedKeys: true };
}

function everything(journal: Journal): unknown {
  return { things: journal.scan("things"), others: journal.scan("others") };
}

describe("embedded journal", () => {
  it("replays puts, replacements and deletes after a reopen", async () => {
    const dir = await tempDir();
    const first = await openJournal({ dir, collections });
    await first.commit([{ op: "insert", collection: "things", doc: thing(1, { slug: "a", group: "g1" }) }]);
    await first.commit([{ op: "insert", collection: "things", doc: thing(2, { slug: "b", group: "g1" }) }]);
    await first.commit([{ op: "put", collection: "things", doc: thing(1, { slug: "c", group: "g2" }) }]);
    await first.commit([{ op: "delete", collection: "things", id: "t_0002" }, { op: "put", collection: "others", doc: thing(9) }]);
    const before = everything(first);
    await first.close();

    const second = await openJournal({ dir, collections });
    expect(everything(second)).toEqual(before);
    expect(second.scan("things")).toEqual([{ id: "t_0001", n: 1, slug: "c", group: "g2" }]);
    expect(second.findUnique("things", "slug", "c")).toEqual(thing(1, { slug: "c", group: "g2" }));
    expect(second.findUnique("things", "slug", "a")).toBeUndefined();
    expect(second.findUnique("things", "slug", "b")).toBeUndefined();
    expect(second.scan("things", { index: { name: "group", value: "g1" } })).toEqual([]);
    expect(second.get("others", "t_0009")).toEqual(thing(9));
    expect(second.stats().opened).toEqual({ ops: 5, truncatedBytes: 0, compacted: false });
    await second.close();
  });

  it("scans in id order whatever the insert order, with filter, index and keyset pagination", async () => {
    const journal = await openJournal({ dir: await tempDir(), collections });
    for (const n of [5, 1, 9, 3, 7, 2]) {
      await journal.commit([{ op: "insert", collection: "things", doc: thing(n, { group: n % 2 ? "odd" : "even" }) }]);
    }
    await journal.commit([{ op: "delete", collection: "things", id: "t_0003" }]);
    expect(journal.scan("things").map((t) => t.id)).toEqual(["t_0001", "t_0002", "t_0005", "t_0007", "t_0009"]);
    expect(journal.scan<Thing>("things", { after: "t_0002", limit: 2, filter: (t) => t.n !== 5 }).map((t) => t.n)).toEqual([7, 9]);
    expect(journal.scan("things", { index: { name: "group", value: "odd" }, after: "t_0001" }).map((t) => t.id)).toEqual(["t_0005", "t_0007", "t_0009"]);
    expect(journal.count("things")).toBe(5);
    await journal.close();
  });

  it("judges unique keys on the state after the whole commit and refuses a collision without changing anything", async () => {
    const journal = await openJournal({ dir: await tempDir(), collections });
    await journal.commit([
      { op: "insert", collection: "things", doc: thing(1, { slug: "x" }) },
      { op: "insert", collection: "things", doc: thing(2, { slug: "y" }) },
    ]);
    // Swapping slugs in one commit is legal even though each put alone would collide.
    await journal.commit([
      { op: "put", collection: "things", doc: thing(1, { slug: "y" }) },
      { op: "put", collection: "things", doc: thing(2, { slug: "x" }) },
    ]);
    expect(journal.findUnique("things", "slug", "x")?.id).toBe("t_0002");
    const refused = journal.commit([
      { op: "put", collection: "others", doc: thing(5) },
      { op: "insert", collection: "things", doc: thing(3, { slug: "x" }) },
    ]);
    await expect(refused).rejects.toBeInstanceOf(UniqueViolationError);
    await expect(refused).rejects.toMatchObject({ name: "UniqueViolationError", collection: "things", index: "slug" });
    expect(journal.get("others", "t_0005")).toBeUndefined();
    expect(journal.get("things", "t_0003")).toBeUndefined();
    await expect(journal.commit([{ op: "put", collection: "nope", doc: thing(1) }])).rejects.toThrow(/unknown collection "nope"/);
    await journal.close();
  });

  it("ignores and truncates a torn trailing line, then keeps accepting writes", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedDocumentStore({ dir });
    for (let n = 1; n <= 3; n++) await store.apis.insert(api(n));
    await store.close();
    const path = join(dir, "journal.log");
    const intact = (await stat(path)).size;
    const torn = `{"ops":[{"put":"apis","doc":{"id":"api_0004","workspaceId":"ws_a","na`;
    await appendFile(path, torn);

    const reopened = await openJournal({ dir, collections: { apis: {} } });
    expect(reopened.stats().opened).toEqual({ ops: 3, truncatedBytes: Buffer.byteLength(torn), compacted: false });
    expect((await stat(path)).size).toBe(intact);
    expect(reopened.scan("apis")).toEqual([api(1), api(2), api(3)]);
    await reopened.commit([{ op: "insert", collection: "apis", doc: api(4) }]);
    await reopened.close();

    const again = await createEmbeddedDocumentStore({ dir });
    expect(await again.apis.get("ws_a", "api_0004")).toEqual(api(4));
    await again.close();
  });

  it("drops a zero-filled tail (a crash after the size grew but before the data landed)", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedDocumentStore({ dir });
    await store.apis.insert(api(1));
    await store.close();
    await appendFile(join(dir, "journal.log"), Buffer.alloc(4096));
    const reopened = await openJournal({ dir, collections: { apis: {} } });
    expect(reopened.stats().opened.truncatedBytes).toBe(4096);
    expect(reopened.scan("apis")).toEqual([api(1)]);
    await reopened.close();
  });

  it("refuses to open when an unreadable record is followed by intact ones, and releases the lock", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedDocumentStore({ dir });
    for (let n = 1; n <= 3; n++) await store.apis.insert(api(n));
    await store.close();
    const path = join(dir, "journal.log");
    const lines = (await readFile(path, "utf8")).split("\n");
    lines[2] = lines[2].replace('"ops"', '"o?s"');
    await writeFile(path, lines.join("\n"));
    await expect(createEmbeddedDocumentStore({ dir })).rejects.toMatchObject({ name: "CorruptJournalError" });
    await expect(createEmbeddedDocumentStore({ dir })).rejects.toThrow(/unreadable record at byte \d+ followed by intact ones/);
  });

  it("compacts a journal that outgrew its live data, keeping every document, undeclared collections too", async () => {
    const dir = await tempDir();
    const first = await openJournal({ dir, collections });
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 200 }, (_, n) =>
          first.commit([{ op: "put", collection: "things", doc: thing(n, { slug: `s${n}`, group: `g${n % 3}`, n: round }) }]),
        ),
      );
    }
    for (let n = 0; n < 200; n += 2) await first.commit([{ op: "delete", collection: "things", id: thing(n).id }]);
    await first.commit([{ op: "put", collection: "others", doc: thing(1) }]);
    const before = everything(first);
    const grown = first.stats().bytes;
    await first.close();
    await writeFile(join(dir, "journal.log.compact"), "left by a crash during compaction");

    // Opened without "others": compaction must still carry those documents over.
    const second = await openJournal({ dir, collections: { things: collections.things }, compaction: { minOps: 100 } });
    expect(second.stats().opened).toEqual({ ops: 1101, truncatedBytes: 0, compacted: true });
    expect(second.stats().bytes).toBeLessThan(grown / 4);
    expect(second.scan("things")).toEqual((before as { things: unknown }).things);
    await second.close();
    await expect(stat(join(dir, "journal.log.compact"))).rejects.toMatchObject({ code: "ENOENT" });

    const third = await openJournal({ dir, collections, compaction: { minOps: 100 } });
    expect(third.stats().opened).toEqual({ ops: 101, truncatedBytes: 0, compacted: false });
    expect(everything(third)).toEqual(before);
    expect(third.findUnique("things", "slug", "s7")).toEqual(thing(7, { slug: "s7", group: "g1", n: 4 }));
    expect(third.scan("things", { index: { name: "group", value: "g0" }, limit: 2 }).map((t) => t.id)).toEqual(["t_0003", "t_0009"]);
    await third.close();
  });

  it("lets 2000 concurrent commits all become durable", async () => {
    const dir = await tempDir();
    const journal = await openJournal({ dir, collections });
    await Promise.all(Array.from({ length: 2000 }, (_, n) => journal.commit([{ op: "insert", collection: "things", doc: thing(n) }])));
    await journal.close();
    const reopened = await openJournal({ dir, collections });
    expect(reopened.count("things")).toBe(2000);
    expect(reopened.stats().opened.ops).toBe(2000);
    await reopened.close();
  });

  it("writes the commits of one turn as one record holding each changed document once, in its last state", async () => {
    const dir = await tempDir();
    const journal = await openJournal({ dir, collections });
    await journal.commit([{ op: "insert", collection: "things", doc: thing(1, { slug: "a" }) }]);
    // 50 commits of one turn: a hot document changed by each, another one inserted and deleted again, a slug moved.
    await Promise.all([
      ...Array.from({ length: 50 }, (_, n) => journal.commit([{ op: "put", collection: "others", doc: thing(7, { n }) }])),
      journal.commit([{ op: "insert", collection: "things", doc: thing(2, { slug: "b" }) }]),
      journal.commit([{ op: "delete", collection: "things", id: thing(2).id }]),
      journal.commit([
        { op: "put", collection: "things", doc: thing(1, { slug: "c" }) },
        { op: "put", collection: "things", doc: thing(3, { slug: "a" }) },
      ]),
    ]);
    const before = everything(journal);
    await journal.close();
    const records = (await readFile(join(dir, "journal.log"), "utf8")).trim().split("\n").slice(1);
    expect(records.map((line) => JSON.parse(line))).toEqual([
      { ops: [{ put: "things", doc: thing(1, { slug: "a" }) }] },
      {
        ops: [
          { put: "others", doc: thing(7, { n: 49 }) },
          { del: "things", id: thing(2).id },
          { put: "things", doc: thing(1, { slug: "c" }) },
          { put: "things", doc: thing(3, { slug: "a" }) },
        ],
      },
    ]);
    const reopened = await openJournal({ dir, collections });
    expect(everything(reopened)).toEqual(before);
    expect(reopened.findUnique("things", "slug", "a")?.id).toBe(thing(3).id);
    expect(reopened.stats().opened.ops).toBe(5);
    await reopened.close();
  });

  it("reads a journal of one record per commit (as written before batches became one record) and batch records alike", async () => {
    const dir = await tempDir();
    const old = [
      { ops: [{ put: "things", doc: thing(1, { slug: "a", group: "g" }) }] },
      { ops: [{ put: "things", doc: thing(1, { slug: "b", group: "g" }) }] },
      { ops: [{ put: "others", doc: thing(2) }, { del: "things", id: "t_0009" }] },
    ];
    await writeFile(join(dir, "journal.log"), `{"journal":"keyward","version":2,"next":1}\n${old.map((r) => `${JSON.stringify(r)}\n`).join("")}`);
    const first = await openJournal({ dir, collections });
    expect(first.stats().opened).toEqual({ ops: 4, truncatedBytes: 0, compacted: false });
    await Promise.all([
      first.commit([{ op: "put", collection: "things", doc: thing(1, { slug: "c", group: "g" }) }]),
      first.commit([{ op: "insert", collection: "things", doc: thing(3, { slug: "b" }) }]),
    ]);
    const before = everything(first);
    await first.close();
    const second = await openJournal({ dir, collections });
    expect(everything(second)).toEqual(before);
    expect(second.scan("things")).toEqual([thing(1, { slug: "c", group: "g" }), thing(3, { slug: "b" })]);
    expect(second.get("others", "t_0002")).toEqual(thing(2));
    await second.close();
  });

  it("refuses a document holding a BigInt and changes nothing; a function is left out as JSON leaves it out", async () => {
    const dir = await tempDir();
    const journal = await openJournal({ dir, collections });
    const bad = journal.commit([
      { op: "put", collection: "others", doc: thing(1) },
      { op: "put", collection: "things", doc: { ...thing(2), big: 1n } as never },
    ]);
    await expect(bad).rejects.toBeInstanceOf(TypeError);
    expect(journal.get("others", thing(1).id)).toBeUndefined();
    await journal.commit([{ op: "put", collection: "others", doc: { ...thing(3), f: () => 1, list: [() => 1, 2] } as never }]);
    expect(journal.get("others", thing(3).id)).toEqual({ ...thing(3), list: [null, 2] });
    await journal.close();
    const reopened = await openJournal({ dir, collections });
    expect(everything(reopened)).toEqual({ things: [], others: [{ ...thing(3), list: [null, 2] }] });
    await reopened.close();
  });

  it("after close, commits and reads are refused and ping rejects", async () => {
    const store = await createEmbeddedDocumentStore({ dir: await tempDir() });
    const pending = store.apis.insert(api(1));
    await store.close();
    await expect(pending).resolves.toBeUndefined();
    await expect(store.apis.insert(api(2))).rejects.toThrow(/closed/);
    await expect(store.ping()).rejects.toThrow(/closed/);
    await expect(store.apis.get("ws_a", "api_0001")).rejects.toThrow(/closed/);
    await expect(store.keys.replace(key(1))).rejects.toThrow(/closed/);
    await expect(store.identities.markDeleted("ws_a", "id_0001", 5)).rejects.toThrow(/closed/);
  });

  it("rebuilds the key and identity indexes on reopen: hashes, api and identity lists, live external ids", async () => {
    const dir = await tempDir();
    const first = await createEmbeddedDocumentStore({ dir });
    await first.keys.insert(key(1, { identityId: "id_0002" }));
    await first.keys.insert(key(2));
    await first.keys.markDeleted("ws_a", "key_0002", 7);
    await first.identities.insert(identity(1, "user_1"));
    await first.identities.markDeleted("ws_a", "id_0001", 8);
    await first.identities.insert(identity(2, "user_1"));
    await first.close();

    const second = await createEmbeddedDocumentStore({ dir });
    expect(await second.keys.findByHash("khash_0001")).toEqual(key(1, { identityId: "id_0002" }));
    expect(await second.keys.findByHash("khash_0002")).toBeUndefined();
    await expect(second.keys.insert({ ...key(3), hash: "khash_0002" })).rejects.toBeInstanceOf(UniqueViolationError);
    expect((await second.keys.listByApi("ws_a", "api_0001", { limit: 10 })).map((k) => k.id)).toEqual(["key_0001"]);
    expect((await second.keys.listByIdentity("ws_a", "id_0002", { limit: 10 })).map((k) => k.id)).toEqual(["key_0001"]);
    expect(await second.identities.findByExternalId("ws_a", "user_1")).toEqual(identity(2, "user_1"));
    await expect(second.identities.insert(identity(3, "user_1"))).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await second.identities.count("ws_a")).toBe(1);
    await second.close();
  });
});

function key(n: number, extra: Partial<KeyRecord> = {}): KeyRecord {
  const id = String(n).padStart(4, "0");
  return { id: `key_${id}`, workspaceId: "ws_a", apiId: "api_0001", hash: `khash_${id}`, start: "sk_", createdAt: n, enabled: true, ratelimits: [], permissions: [], roles: [], ...extra };
}

function identity(n: number, externalId: string): IdentityRecord {
  return { id: `id_${String(n).padStart(4, "0")}`, workspaceId: "ws_a", externalId, ratelimits: [], createdAt: n };
}

// The lock itself (other processes, crashes, zombies): lock-file.test.ts.
describe("embedded data directory lock", () => {
  it("refuses a second open of the same directory until the first closes", async () => {
    const dir = await tempDir();
    const first = await createEmbeddedDocumentStore({ dir });
    await expect(createEmbeddedDocumentStore({ dir })).rejects.toMatchObject({ name: "DataDirLockedError" });
    await expect(createEmbeddedDocumentStore({ dir })).rejects.toThrow(/already open in this process/);
    await first.close();
    const second = await createEmbeddedDocumentStore({ dir });
    await second.ping();
    await second.close();
  });
});
