import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedCounterStore } from "../../src/store/embedded/counters.js";
import { COMPACTION_DEFAULTS, openJournal, type CollectionSpec, type Journal } from "../../src/store/embedded/journal.js";
import type { ConsumeResult } from "../../src/store/ports/counters.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const crashWriter = fileURLToPath(new URL("./fixtures/compaction-crash-writer.ts", import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-compaction-"));
  dirs.push(dir);
  return dir;
}
const MiB = 1 << 20;
const T = 1_700_000_012_345;

/** Bytes of every file in `dir`, and the journal's file names. */
async function onDisk(dir: string): Promise<{ bytes: number; journal: string[] }> {
  let bytes = 0;
  const journal: string[] = [];
  for (const name of await readdir(dir)) {
    bytes += await stat(join(dir, name)).then((s) => s.size, () => 0); // a file may vanish while listed
    if (name.startsWith("journal")) journal.push(name);
  }
  return { bytes, journal: journal.sort() };
}

/** A tiny deterministic PRNG, so a failing sequence can be replayed. */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

describe("embedded counter journal compaction", () => {
  it("journal size bounded under a long verification run: 200,000 VALID verifications keep the directory under 16 MiB, where the journal used to reach 29 MB", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedCounterStore({ dir });
    const keys = 1_000;
    const runs = 200_000;
    await Promise.all(Array.from({ length: keys }, (_, k) => store.setCredits(`id_${k % 100}`, `key_${k}`, runs, T)));
    let peak = 0;
    let next = 0;
    const wrong: string[] = [];
    async function worker(): Promise<void> {
      while (next < runs) {
        const i = next++;
        const k = i % keys;
        const result = await store.consume({
          tag: `id_${k % 100}`,
          now: T + i,
          limits: [{ bucket: `key:key_${k}:minute`, limit: 1_000_000, duration: 60_000, cost: 1 }],
          credits: { keyId: `key_${k}`, cost: 1 },
        });
        if (result.outcome !== "VALID") wrong.push(`${i}: ${result.outcome}`);
        if (i % 5_000 === 0) peak = Math.max(peak, (await onDisk(dir)).bytes);
      }
    }
    await Promise.all(Array.from({ length: 64 }, worker));
    await store.close();
    expect(wrong).toEqual([]);
    const closed = await onDisk(dir);
    // The documented bound: max(8 MiB, 2 × live) with live ≈ 0.1 MiB here, plus a snapshot being written (≈ live)
    // and what arrives while a compaction runs (its fsyncs take 10-200 ms on this shared disk, and this loop writes
    // ~20 MB/s; a server at 10,000 verifications/s writes a tenth of that). Uncompacted, the journal grows ~147 bytes
    // per verification with these short ids (~230 with real ones): 29 MB by now.
    expect(COMPACTION_DEFAULTS.minBytes).toBe(8 * MiB);
    expect(Math.max(peak, closed.bytes)).toBeLessThan(16 * MiB);
    expect(closed.journal.length).toBeLessThanOrEqual(3);

    const reopened = await createEmbeddedCounterStore({ dir });
    try {
      for (let k = 0; k < keys; k++) expect(await reopened.readCredits(`id_${k % 100}`, `key_${k}`)).toBe(runs - runs / keys);
    } finally {
      await reopened.close();
    }
  }, 60_000);

  it("keeps every balance exact across online compactions running between sets, adjustments, deletes and consumes", async () => {
    const dir = await tempDir();
    // No floor: a compaction whenever the files pass twice the live data (~30 KB), so one is nearly always running.
    const store = await createEmbeddedCounterStore({ dir, compaction: { minBytes: 0 } });
    const keys = 300;
    const model = new Map<number, number>();
    const next = random(19);
    const mismatches: string[] = [];
    const check = (what: string, got: unknown, want: unknown) => {
      if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    };
    let done = 0;
    // Each operation is judged synchronously when called, so the model steps in the same order as the store.
    function step(i: number): Promise<unknown> {
      const k = next(keys);
      const [tag, keyId] = [`t${k % 37}`, `key_${k}`];
      const roll = next(100);
      const balance = model.get(k);
      if (roll < 3) {
        model.delete(k);
        return store.deleteCredits(tag, keyId);
      }
      if (roll < 8) {
        const value = next(1_000);
        model.set(k, value);
        return store.setCredits(tag, keyId, value, T + i);
      }
      if (roll < 13) {
        const operation = (["set", "increment", "decrement"] as const)[next(3)]!;
        const value = next(50);
        const base = balance ?? 0;
        const want = operation === "set" ? value : operation === "increment" ? base + value : Math.max(0, base - value);
        model.set(k, want);
        return store.adjustCredits(tag, keyId, { operation, value, now: T + i }).then((got) => check(`adjust ${i}`, got, want));
      }
      const cost = 1 + next(3);
      const ok = balance !== undefined && balance >= cost;
      if (ok) model.set(k, balance - cost);
      const want: ConsumeResult = { outcome: ok ? "VALID" : "USAGE_EXCEEDED", limits: [], credits: { remaining: ok ? balance - cost : (balance ?? 0) } };
      return store.consume({ tag, now: T + i, limits: [], credits: { keyId, cost } }).then((got) => check(`consume ${i}`, got, want));
    }
    async function worker(): Promise<void> {
      while (done < 100_000) await step(done++);
    }
    await Promise.all(Array.from({ length: 32 }, worker));
    await store.close();
    expect(mismatches).toEqual([]);
    const header = JSON.parse((await readFile(join(dir, "journal.log"), "utf8")).split("\n")[0]!);
    expect(header.next).toBeGreaterThan(5); // as many cuts, each the start of a compaction

    const reopened = await createEmbeddedCounterStore({ dir });
    try {
      for (let k = 0; k < keys; k++) check(`key_${k} after reopen`, await reopened.readCredits(`t${k % 37}`, `key_${k}`), model.get(k));
      expect(mismatches).toEqual([]);
      expect(reopened.stats().balances).toBe(model.size);
    } finally {
      await reopened.close();
    }
  }, 60_000);

  it("loses no acknowledged deduction when SIGKILLed while a snapshot is being written, three times over", async () => {
    const dir = await tempDir();
    const keys = 4_000;
    const setup = await createEmbeddedCounterStore({ dir });
    await Promise.all(Array.from({ length: keys }, (_, k) => setup.setCredits(`k${k}`, `k${k}`, 1_000_000, T)));
    await setup.close();
    let balances = Array.from({ length: keys }, () => 1_000_000);
    let caught = 0;
    for (let round = 0; round < 3; round++) {
      const { acked, midSnapshot } = await spendThenKillMidSnapshot(dir);
      if (midSnapshot) caught += 1;
      const store = await createEmbeddedCounterStore({ dir });
      try {
        const after: number[] = [];
        for (let k = 0; k < keys; k++) after.push((await store.readCredits(`k${k}`, `k${k}`))!);
        // Every acknowledged deduction is on disk; at most the 16 in flight when killed landed unacknowledged.
        const late = acked.filter(([k, remaining]) => after[k]! > remaining);
        expect(late).toEqual([]);
        const spent = balances.reduce((sum, b, k) => sum + b - after[k]!, 0);
        expect(spent).toBeGreaterThanOrEqual(acked.length);
        expect(spent).toBeLessThanOrEqual(acked.length + 16);
        expect(after.every((b, k) => b <= balances[k]!)).toBe(true);
        balances = after;
      } finally {
        await store.close();
      }
    }
    expect(caught).toBe(3);
  }, 120_000);
});

/**
 * Runs the compaction crash writer until it acknowledged 2,000 deductions, then SIGKILLs it as soon as a snapshot
 * is being written (its temp file exists). Returns every ack as [key index, remaining], and whether the temp file
 * was there right before the kill.
 */
async function spendThenKillMidSnapshot(dir: string): Promise<{ acked: Array<[number, number]>; midSnapshot: boolean }> {
  const child = spawn(process.execPath, ["--import", "tsx", crashWriter, dir, "4000"], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  const acked: Array<[number, number]> = [];
  let stderr = "";
  let partial = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  // "close", not "exit": acks still in the pipe when the process dies must be read before counting them.
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop()!; // a line cut by the kill was never fully reported: ignore it
    for (const line of lines) {
      const m = /^ack (\d+) (\d+)$/.exec(line);
      if (m) acked.push([Number(m[1]), Number(m[2])]);
    }
  });
  let midSnapshot = false;
  const deadline = Date.now() + 20_000;
  while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) {
    if (acked.length >= 2_000 && (await readdir(dir)).includes("journal.log.compact")) {
      midSnapshot = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  child.kill("SIGKILL");
  const signal = await exited;
  expect(signal, `writer died on its own: ${stderr}`).toBe("SIGKILL");
  expect(acked.length, `writer too slow or failing: ${stderr}`).toBeGreaterThanOrEqual(2_000);
  return { acked, midSnapshot };
}

// ---------------------------------------------------------------------------------------------------------------
// The files each crash point leaves, written out in the journal's format (journal-file.ts), then reopened.

const collections: Record<string, CollectionSpec> = { things: { unique: { slug: (d) => d.slug } } };
const thing = (doc: { id: string; v: number; slug?: string; group?: string }) => doc;
const header = (fields: Record<string, number>) => `${JSON.stringify({ journal: "keyward", ...fields })}\n`;
const put = (id: string, v: number, slug?: string) => `${JSON.stringify({ ops: [{ put: "things", doc: { id, v, ...(slug ? { slug } : {}) } }] })}\n`;
const del = (id: string) => `${JSON.stringify({ ops: [{ del: "things", id }] })}\n`;
// Before the cut: the state at the cut is { a: 2, c: x }. After it: { a: 3, b: 3, d: y }.
const BEFORE_CUT = put("a", 1) + put("b", 1) + put("c", 1, "x") + put("a", 2) + del("b");
const AFTER_CUT = put("d", 1, "y") + put("a", 3) + del("c") + put("b", 3);
const AT_CUT = [{ id: "a", v: 2 }, { id: "c", v: 1, slug: "x" }];
const FINAL = [{ id: "a", v: 3 }, { id: "b", v: 3 }, { id: "d", v: 1, slug: "y" }];
const SNAPSHOT = put("a", 2) + put("c", 1, "x");

async function files(contents: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  for (const [name, text] of Object.entries(contents)) await writeFile(join(dir, name), text);
  return dir;
}

async function reopenAndAdd(dir: string, expected: unknown[]): Promise<Journal> {
  const journal = await openJournal({ dir, collections });
  expect(journal.scan("things")).toEqual(expected);
  return journal;
}

describe("embedded journal recovery from a crash during compaction", () => {
  for (const [what, tail, dropped] of [
    ["an empty new tail", "", 0],
    ["a new tail with a torn header", `{"journal":"keyw`, 16],
    ["a new tail holding only its header", header({ version: 2, segment: 1 }), 0],
  ] as const) {
    it(`before the cut (${what}): keeps every commit and takes new ones`, async () => {
      const dir = await files({ "journal.log": header({ version: 1 }) + BEFORE_CUT, "journal.1.log": tail });
      const journal = await reopenAndAdd(dir, AT_CUT);
      expect(journal.stats().opened).toEqual({ ops: 5, truncatedBytes: dropped, compacted: false });
      await journal.commit([{ op: "put", collection: "things", doc: thing({ id: "e", v: 1 }) }]);
      await journal.close();
      const again = await reopenAndAdd(dir, [...AT_CUT, { id: "e", v: 1 }]);
      await again.close();
    });
  }

  it("after the cut, with the snapshot half written: replays the old files and the new tail, and drops the temp file", async () => {
    const dir = await files({
      "journal.log": header({ version: 2, next: 1 }) + BEFORE_CUT,
      "journal.1.log": header({ version: 2, segment: 1 }) + AFTER_CUT,
      "journal.log.compact": header({ version: 2, next: 2 }) + put("a", 2),
    });
    const journal = await reopenAndAdd(dir, FINAL);
    expect(journal.findUnique("things", "slug", "y")).toEqual({ id: "d", v: 1, slug: "y" });
    expect(journal.findUnique("things", "slug", "x")).toBeUndefined();
    await journal.close();
    expect((await onDisk(dir)).journal).toEqual(["journal.1.log", "journal.log"]);
  });

  it("after the snapshot's rename, before the old tail's removal: replays the snapshot and the new tail only, and removes the old tail", async () => {
    const dir = await files({
      "journal.log": header({ version: 2, next: 2 }) + SNAPSHOT,
      "journal.1.log": header({ version: 2, segment: 1 }) + BEFORE_CUT,
      "journal.2.log": header({ version: 2, segment: 2 }) + AFTER_CUT,
    });
    const journal = await reopenAndAdd(dir, FINAL);
    expect(journal.stats().opened).toEqual({ ops: 6, truncatedBytes: 0, compacted: false });
    await journal.commit([{ op: "delete", collection: "things", id: "a" }]);
    await journal.close();
    expect((await onDisk(dir)).journal).toEqual(["journal.2.log", "journal.log"]);
    expect((await readFile(join(dir, "journal.2.log"), "utf8")).endsWith(del("a"))).toBe(true);
    const again = await reopenAndAdd(dir, FINAL.slice(1));
    await again.close();
  });

  it("drops a torn last batch of the newest tail, and a tail created after it", async () => {
    const torn = `{"ops":[{"put":"things","doc":{"id":"z"`;
    const dir = await files({
      "journal.log": header({ version: 2, next: 2 }) + SNAPSHOT,
      "journal.2.log": header({ version: 2, segment: 2 }) + AFTER_CUT + torn,
      "journal.3.log": header({ version: 2, segment: 3 }),
    });
    const journal = await reopenAndAdd(dir, FINAL);
    expect(journal.stats().opened.truncatedBytes).toBe(torn.length + header({ version: 2, segment: 3 }).length);
    await journal.close();
    expect((await onDisk(dir)).journal).toEqual(["journal.2.log", "journal.log"]);
  });

  it("refuses files no crash can leave: a torn record before intact ones in a later tail, a missing tail, tails without a base", async () => {
    const torn = await files({
      "journal.log": header({ version: 2, next: 1 }) + BEFORE_CUT,
      "journal.1.log": header({ version: 2, segment: 1 }) + put("d", 1).slice(0, 10),
      "journal.2.log": header({ version: 2, segment: 2 }) + put("e", 1),
    });
    await expect(openJournal({ dir: torn, collections })).rejects.toThrow(/journal\.1\.log: unreadable record at byte \d+ followed by intact ones/);
    const gap = await files({ "journal.log": header({ version: 2, next: 1 }), "journal.2.log": header({ version: 2, segment: 2 }) + put("e", 1) });
    await expect(openJournal({ dir: gap, collections })).rejects.toMatchObject({ name: "CorruptJournalError" });
    const headless = await files({ "journal.1.log": header({ version: 2, segment: 1 }) + put("e", 1) });
    await expect(openJournal({ dir: headless, collections })).rejects.toThrow(/journal\.log is missing but tails of it are present/);
  });
});

describe("embedded document journal compaction", () => {
  it("compacts online while commits move unique keys, delete and re-insert, and reopens to the same documents and indexes", async () => {
    const dir = await tempDir();
    const spec: Record<string, CollectionSpec> = { things: { unique: { slug: (d) => d.slug }, indexes: { group: (d) => d.group } } };
    const journal = await openJournal({ dir, collections: spec, compaction: { minBytes: 0 } });
    const next = random(7);
    const docs = 1_500; // three pages of the snapshot walk
    // slugs[i] is the slug doc i holds (or undefined when deleted); a commit swaps two docs' slugs at once.
    const slugs: Array<string | undefined> = Array.from({ length: docs }, (_, i) => `s${i}`);
    const id = (i: number) => `t${String(i).padStart(4, "0")}`;
    await Promise.all(slugs.map((slug, i) => journal.commit([{ op: "insert", collection: "things", doc: thing({ id: id(i), slug, group: `g${i % 7}`, v: 0 }) }])));
    for (let round = 0; round < 400; round++) {
      const batch: Promise<void>[] = [];
      for (let j = 0; j < 50; j++) {
        const [a, b] = [next(docs), next(docs)];
        const v = round * 100 + j;
        if (slugs[a] === undefined) {
          slugs[a] = `n${v}`;
          batch.push(journal.commit([{ op: "insert", collection: "things", doc: thing({ id: id(a), slug: slugs[a], group: `g${v % 7}`, v }) }]));
        } else if (next(10) === 0) {
          slugs[a] = undefined;
          batch.push(journal.commit([{ op: "delete", collection: "things", id: id(a) }]));
        } else if (a !== b && slugs[b] !== undefined) {
          [slugs[a], slugs[b]] = [slugs[b], slugs[a]];
          batch.push(journal.commit([
            { op: "put", collection: "things", doc: thing({ id: id(a), slug: slugs[a], group: `g${v % 7}`, v }) },
            { op: "put", collection: "things", doc: thing({ id: id(b), slug: slugs[b], group: `g${(v + 1) % 7}`, v }) },
          ]));
        }
      }
      await Promise.all(batch);
    }
    const before = journal.scan("things");
    const compactions = journal.stats().compactions;
    await journal.close();
    expect(compactions).toBeGreaterThan(10); // ~2.5 MB written, a compaction per ~240 KB (2 × live)
    const closed = (await onDisk(dir)).bytes;

    const reopened = await openJournal({ dir, collections: spec });
    try {
      expect(reopened.scan("things")).toEqual(before);
      for (let i = 0; i < docs; i++) {
        if (slugs[i] !== undefined) expect(reopened.findUnique("things", "slug", slugs[i]!)?.id).toBe(id(i));
      }
      for (let g = 0; g < 7; g++) {
        const group = before.filter((d: any) => d.group === `g${g}`);
        expect(reopened.scan("things", { index: { name: "group", value: `g${g}` } })).toEqual(group);
      }
    } finally {
      await reopened.close();
    }
    // The bound with no floor: twice the live data (a fresh snapshot's size, ~120 KB), plus what arrived while a
    // compaction ran (rounds of commits go on during its fsyncs) — against ~2.5 MB written in all.
    const snapshot = await openJournal({ dir, collections: spec, compaction: { minOps: 0, ratio: 0 } });
    const live = snapshot.stats().bytes;
    expect(snapshot.stats().opened.compacted).toBe(true);
    await snapshot.close();
    expect(closed).toBeLessThan(6 * live);
  }, 60_000);
});
