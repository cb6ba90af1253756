import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedEventStore } from "../../src/store/embedded/events.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";
import { manualClock, runEventStoreContract } from "./events.contract.js";
import { runLastUseContract } from "./last-use.contract.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-events-"));
  dirs.push(dir);
  return dir;
}

runEventStoreContract("embedded", async (options) => createEmbeddedEventStore({ dir: await tempDir(), ...options }), {
  clockRetention: true,
});

runLastUseContract("embedded", async (options) => createEmbeddedEventStore({ dir: await tempDir(), ...options }));

const HOUR = 3_600_000;
const T = 1_700_002_800_000; // an hour boundary
const event = (fields: Partial<VerificationEvent> = {}): VerificationEvent => ({
  time: T, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: ["a"],
  creditsSpent: 1, latencyMs: 0.5, requestId: "req_1", ...fields,
});
// Events are from 2023; a clock at their time keeps the default 30-day retention from deleting them.
const clock = manualClock(T + HOUR);
const query = { workspaceId: "ws_1", since: 0, until: 4e12, bucketMs: HOUR };

describe("embedded verification events on disk", () => {
  it("appends one JSON line per event to the segment file named by its hour's start", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir, clock });
    store.record(event({ identityId: "id_1" }));
    store.record(event({ time: T + HOUR + 5, outcome: "DISABLED", tags: [] }));
    await store.close();
    expect((await readdir(join(dir, "events"))).sort()).toStrictEqual([`${T}.jsonl`, `${T + HOUR}.jsonl`, "last-used.ndjson"].sort());
    const first = (await readFile(join(dir, "events", `${T}.jsonl`), "utf8")).split("\n");
    expect(first).toHaveLength(2);
    expect(first[1]).toBe("");
    expect(JSON.parse(first[0]!)).toStrictEqual({
      time: T, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", identityId: "id_1", outcome: "VALID",
      tags: ["a"], creditsSpent: 1, latencyMs: 0.5, requestId: "req_1",
    });
  });

  it("writes a batch in slices, off the event loop, so the requests arriving meanwhile are served in between", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir, clock, flushIntervalMs: 3_600_000 });
    for (let i = 0; i < 1_000; i++) store.record(event({ requestId: `req_${i}` }));
    const segment = join(dir, "events", `${T}.jsonl`);
    const lines = () => readFileSync(segment, "utf8").split("\n").length - 1;
    // The file as every turn sees it while the batch is written: it grows by slices (a write of 128 lines runs on the
    // thread pool, so a turn may see one in progress), never all at once.
    const seen = new Set<number>();
    let flushed = false;
    const watch = (): void => {
      if (existsSync(segment)) seen.add(lines());
      if (!flushed) setImmediate(watch);
    };
    setImmediate(watch);
    await store.flush();
    flushed = true;
    expect(lines()).toBe(1_000);
    expect([...seen].filter((count) => count > 0 && count < 1_000).length).toBeGreaterThanOrEqual(3);
    expect(store.stats()).toMatchObject({ written: 1_000, buffered: 0, dropped: 0 });
    expect(await store.aggregate(query)).toStrictEqual([{ time: T, outcome: "VALID", count: 1_000 }]);
    await store.close();
  });

  it("keeps no last use when told not to (rate-limit events: any number of identifiers leaves no entry behind)", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir, clock, trackLastUse: false });
    for (let i = 0; i < 1_000; i++) store.record(event({ keyId: `203.0.113.${i}` }));
    await store.flush();
    expect(await store.lastUsed("ws_1", ["203.0.113.1", "203.0.113.999"])).toEqual(new Map());
    await store.close();
    expect(await readdir(join(dir, "events"))).toStrictEqual([`${T}.jsonl`]);
    expect((await readFile(join(dir, "events", `${T}.jsonl`), "utf8")).trimEnd().split("\n")).toHaveLength(1_000);
  });

  it("keeps events across close and reopen, and appends to the existing segment", async () => {
    const dir = await tempDir();
    const first = await createEmbeddedEventStore({ dir, clock });
    for (let i = 0; i < 3; i++) first.record(event());
    await first.close();
    const second = await createEmbeddedEventStore({ dir, clock });
    second.record(event({ outcome: "EXPIRED" }));
    await second.flush();
    expect(await second.aggregate(query)).toStrictEqual([
      { time: T, outcome: "EXPIRED", count: 1 },
      { time: T, outcome: "VALID", count: 3 },
    ]);
    expect(second.stats()).toMatchObject({ segments: 1, written: 1 });
    await second.close();
  });

  it("skips a line torn by a crash, terminates it before appending, and leaves earlier bytes untouched", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "events"));
    const path = join(dir, "events", `${T}.jsonl`);
    const intact = JSON.stringify(event()) + "\n" + JSON.stringify(event({ outcome: "DISABLED" })) + "\n";
    const torn = JSON.stringify(event()).slice(0, 40);
    await writeFile(path, intact + torn);
    await writeFile(join(dir, "events", "notes.txt"), "not a segment");
    const store = await createEmbeddedEventStore({ dir, clock });
    expect(await store.aggregate(query)).toStrictEqual([
      { time: T, outcome: "DISABLED", count: 1 },
      { time: T, outcome: "VALID", count: 1 },
    ]);
    store.record(event({ outcome: "EXPIRED" }));
    await store.close();
    const text = await readFile(path, "utf8");
    expect(text.startsWith(intact + torn + "\n")).toBe(true);
    const reopened = await createEmbeddedEventStore({ dir, clock });
    expect(await reopened.aggregate(query)).toStrictEqual([
      { time: T, outcome: "DISABLED", count: 1 },
      { time: T, outcome: "EXPIRED", count: 1 },
      { time: T, outcome: "VALID", count: 1 },
    ]);
    await reopened.close();
    expect(await readFile(join(dir, "events", "notes.txt"), "utf8")).toBe("not a segment");
  });

  it("keeps the events of a failed write and writes them exactly once when the disk recovers", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir, clock, flushIntervalMs: 3_600_000 });
    // A directory where the segment file should be makes every append fail with EISDIR.
    const blocker = join(dir, "events", `${T}.jsonl`);
    await mkdir(blocker);
    for (let i = 0; i < 3; i++) store.record(event());
    store.record(event({ time: T + HOUR }));
    await expect(store.flush()).rejects.toThrow(/EISDIR|directory/);
    expect(store.stats()).toMatchObject({ buffered: 3, written: 1, dropped: 0, failedWrites: 1 });
    expect(store.stats().lastError).toMatch(/EISDIR|directory/);
    expect(() => store.record(event({ outcome: "EXPIRED" }))).not.toThrow();
    await rmdir(blocker);
    await store.flush();
    expect(store.stats()).toMatchObject({ buffered: 0, written: 5, dropped: 0, failedWrites: 1 });
    expect(await store.aggregate(query)).toStrictEqual([
      { time: T, outcome: "EXPIRED", count: 1 },
      { time: T, outcome: "VALID", count: 3 },
      { time: T + HOUR, outcome: "VALID", count: 1 },
    ]);
    await store.close();
  });

  it("counts what a dead disk left unwritten at close as dropped", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir, clock, flushIntervalMs: 3_600_000 });
    await mkdir(join(dir, "events", `${T}.jsonl`));
    for (let i = 0; i < 4; i++) store.record(event());
    await store.close();
    expect(store.stats()).toMatchObject({ buffered: 0, written: 0, dropped: 4, failedWrites: 1 });
  });

  it("deletes segments found on disk at start-up once retention needs it, counting their events", async () => {
    const dir = await tempDir();
    const old = await createEmbeddedEventStore({ dir, clock });
    for (let i = 0; i < 50; i++) old.record(event({ time: T - 2 * HOUR }));
    for (let i = 0; i < 50; i++) old.record(event({ time: T - HOUR }));
    await old.close();
    const store = await createEmbeddedEventStore({ dir, clock, retention: { maxEvents: 60 } });
    expect(store.stats().segments).toBe(2);
    store.record(event());
    await store.flush();
    expect(store.stats().segments).toBe(2);
    expect(await store.aggregate(query)).toStrictEqual([
      { time: T - HOUR, outcome: "VALID", count: 50 },
      { time: T, outcome: "VALID", count: 1 },
    ]);
    await store.close();
  });

  it("never keeps a process alive: a store left open with events buffered lets the process exit", async () => {
    const dir = await tempDir();
    const script = [
      'const { createEmbeddedEventStore } = await import("./src/store/embedded/events.js");',
      `const store = await createEmbeddedEventStore({ dir: ${JSON.stringify(dir)} });`,
      "const e = { time: Date.now(), workspaceId: 'ws', apiId: 'a', keyId: 'k', outcome: 'VALID', tags: [], creditsSpent: 0, latencyMs: 1, requestId: 'r' };",
      "for (let i = 0; i < 1500; i++) store.record(e);", // one full batch schedules an immediate write as well
      "console.log(JSON.stringify(store.stats().buffered));",
    ].join("\n");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: new URL("../..", import.meta.url),
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe("1500");
  });
});

describe("embedded last use on disk", () => {
  const lastUsePath = (dir: string) => join(dir, "events", "last-used.ndjson");

  it("keeps each key's last use across close and reopen, and past the retention of its events", async () => {
    const dir = await tempDir();
    const first = await createEmbeddedEventStore({ dir, clock });
    first.record(event({ keyId: "key_1", time: T + 10 }));
    first.record(event({ keyId: "key_2", time: T + 20, workspaceId: "ws_2" }));
    await first.close();
    // A day later, with a one-hour retention: the segment goes, the last use stays.
    const later = manualClock(T + 24 * HOUR);
    const second = await createEmbeddedEventStore({ dir, clock: later, retention: { maxAgeMs: HOUR } });
    expect(await second.lastUsed("ws_1", ["key_1", "key_2"])).toStrictEqual(new Map([["key_1", T + 10]]));
    expect(await second.lastUsed("ws_2", ["key_2"])).toStrictEqual(new Map([["key_2", T + 20]]));
    second.record(event({ keyId: "key_3", time: T + 24 * HOUR }));
    await second.flush();
    expect(await readdir(join(dir, "events"))).not.toContain(`${T}.jsonl`);
    expect(await second.lastUsed("ws_1", ["key_1", "key_3"])).toStrictEqual(new Map([["key_1", T + 10], ["key_3", T + 24 * HOUR]]));
    await second.close();
  });

  it("skips a torn last line at start-up and ends it before the next append", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "events"));
    const intact = `${JSON.stringify({ k: "key_1", w: "ws_1", t: T + 1 })}\n`;
    await writeFile(lastUsePath(dir), `${intact}{"k":"key_2","w":"ws_1","t":${T}`);
    const store = await createEmbeddedEventStore({ dir, clock });
    expect(await store.lastUsed("ws_1", ["key_1", "key_2"])).toStrictEqual(new Map([["key_1", T + 1]]));
    store.record(event({ keyId: "key_2", time: T + 2 }));
    await store.close();
    const reopened = await createEmbeddedEventStore({ dir, clock });
    expect(await reopened.lastUsed("ws_1", ["key_1", "key_2"])).toStrictEqual(new Map([["key_1", T + 1], ["key_2", T + 2]]));
    await reopened.close();
  });

  it("rewrites the file when it holds more than twice the live entries, keeping every key's latest time", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir, clock, flushIntervalMs: 3_600_000 });
    // 4 keys, each flushed 3000 times with a later time: 12 000 lines, past the 10 000-line floor.
    for (let round = 1; round <= 3000; round++) {
      for (let k = 1; k <= 4; k++) store.record(event({ keyId: `key_${k}`, time: T + round }));
      await store.flush();
    }
    const lines = (await readFile(lastUsePath(dir), "utf8")).split("\n").filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(10_000);
    await store.close();
    const reopened = await createEmbeddedEventStore({ dir, clock });
    expect(await reopened.lastUsed("ws_1", ["key_1", "key_2", "key_3", "key_4"])).toStrictEqual(
      new Map([1, 2, 3, 4].map((k) => [`key_${k}`, T + 3000])),
    );
    await reopened.close();
  });

  it("keeps a last use whose write failed and writes it at the next flush", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir, clock, flushIntervalMs: 3_600_000 });
    await mkdir(lastUsePath(dir)); // a directory where the file goes: every append fails with EISDIR
    store.record(event({ keyId: "key_1", time: T + 1 }));
    await store.flush();
    expect(store.stats().lastError).toMatch(/EISDIR|directory/);
    expect(await store.lastUsed("ws_1", ["key_1"])).toStrictEqual(new Map([["key_1", T + 1]]));
    await rmdir(lastUsePath(dir));
    await store.close();
    const reopened = await createEmbeddedEventStore({ dir, clock });
    expect(await reopened.lastUsed("ws_1", ["key_1"])).toStrictEqual(new Map([["key_1", T + 1]]));
    await reopened.close();
  });
});
