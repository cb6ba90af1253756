import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedEventStore } from "../../src/store/embedded/events.js";
import type { VerificationEvent } from "../../src/store/ports.js";
import { manualClock, runEventStoreContract } from "./events.contract.js";

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
    expect((await readdir(join(dir, "events"))).sort()).toStrictEqual([`${T}.jsonl`, `${T + HOUR}.jsonl`]);
    const first = (await readFile(join(dir, "events", `${T}.jsonl`), "utf8")).split("\n");
    expect(first).toHaveLength(2);
    expect(first[1]).toBe("");
    expect(JSON.parse(first[0]!)).toStrictEqual({
      time: T, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", identityId: "id_1", outcome: "VALID",
      tags: ["a"], creditsSpent: 1, latencyMs: 0.5, requestId: "req_1",
    });
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
