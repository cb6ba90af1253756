import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedCounterStore } from "../../src/store/embedded/counters.js";
import { runCounterStoreContract } from "./counters.contract.js";
import { runIdempotencyContract } from "./counters-idempotency.contract.js";
import { openCounterStore } from "./counters.harness.js";

runCounterStoreContract("embedded", () => openCounterStore("embedded"));
runIdempotencyContract("embedded", () => openCounterStore("embedded"));

const repo = fileURLToPath(new URL("../..", import.meta.url));
const crashWriter = fileURLToPath(new URL("./fixtures/counters-crash-writer.ts", import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-counters-"));
  dirs.push(dir);
  return dir;
}
const T = 1_700_000_012_345;

/** Runs the crash writer until it acknowledged `acks` deductions, SIGKILLs it, and returns every ack it printed. */
async function spendThenKill(dir: string, acks: number): Promise<number[]> {
  const child = spawn(process.execPath, ["--import", "tsx", crashWriter, dir, "key_crash", "key_crash"], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const acked: number[] = [];
  let stderr = "";
  let partial = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  // "close", not "exit": acks still in the pipe when the process dies must be read before counting them.
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop()!; // a line cut by the kill was never fully reported: ignore it
    for (const line of lines) if (line.startsWith("ack ")) acked.push(Number(line.slice(4)));
    if (acked.length >= acks) child.kill("SIGKILL");
  });
  const signal = await exited;
  clearTimeout(timer);
  expect(signal, `writer died on its own: ${stderr}`).toBe("SIGKILL");
  expect(acked.length, `writer too slow or failing: ${stderr}`).toBeGreaterThanOrEqual(acks);
  return acked;
}

describe("embedded counters durability", () => {
  it("keeps balances across close and reopen, and starts rate-limit windows afresh", async () => {
    const dir = await tempDir();
    const first = await createEmbeddedCounterStore({ dir });
    const plan = {
      tag: "key_p",
      now: T,
      limits: [{ bucket: "key:key_p:default", limit: 2, duration: 60_000, cost: 1 }],
      credits: { keyId: "key_p", cost: 3 },
    };
    await first.setCredits("key_p", "key_p", 10, T);
    await first.setCredits("id_q", "key_q", 4, T);
    expect(await first.consume(plan)).toMatchObject({ outcome: "VALID", limits: [{ remaining: 1 }], credits: { remaining: 7 } });
    await first.deleteCredits("id_q", "key_q");
    await first.close();
    await expect(first.readCredits("key_p", "key_p")).rejects.toThrow(/closed/);

    const second = await createEmbeddedCounterStore({ dir });
    try {
      expect(await second.readCredits("key_p", "key_p")).toBe(7);
      expect(await second.readCredits("id_q", "key_q")).toBeUndefined();
      expect(second.stats()).toEqual({ buckets: 0, balances: 1, idempotency: 0 });
      expect(await second.consume(plan)).toMatchObject({ outcome: "VALID", limits: [{ remaining: 1 }], credits: { remaining: 4 } });
    } finally {
      await second.close();
    }
  });

  it("refuses a second process on the same directory", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedCounterStore({ dir });
    try {
      await expect(createEmbeddedCounterStore({ dir })).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it("loses no acknowledged deduction when killed with SIGKILL mid-stream, twice over", async () => {
    const dir = await tempDir();
    const initial = 1_000_000;
    const setup = await createEmbeddedCounterStore({ dir });
    await setup.setCredits("key_crash", "key_crash", initial, T);
    await setup.close();
    let acknowledged = 0;
    for (const acks of [300, 900]) {
      const acked = await spendThenKill(dir, acks);
      acknowledged += acked.length;
      const store = await createEmbeddedCounterStore({ dir });
      try {
        const balance = (await store.readCredits("key_crash", "key_crash"))!;
        // Every acknowledged deduction is on disk; at most the 16 in flight when killed landed unacknowledged.
        expect(balance).toBeLessThanOrEqual(initial - acknowledged);
        expect(balance).toBeLessThanOrEqual(Math.min(...acked));
        expect(balance).toBeGreaterThanOrEqual(initial - acknowledged - 16);
        acknowledged = initial - balance; // the unacknowledged ones that landed count as spent from here on
        const next = await store.consume({ tag: "key_crash", now: T, limits: [], credits: { keyId: "key_crash", cost: 1 } });
        expect(next).toEqual({ outcome: "VALID", limits: [], credits: { remaining: balance - 1 } });
        acknowledged += 1;
      } finally {
        await store.close();
      }
    }
  });
});

describe("embedded counters idempotency records", () => {
  const writer = fileURLToPath(new URL("./fixtures/idempotency-crash-writer.ts", import.meta.url));

  it("keeps every acknowledged step's record across SIGKILL: each acknowledged key replays its answer and spends nothing", async () => {
    const dir = await tempDir();
    const setup = await createEmbeddedCounterStore({ dir });
    await setup.setCredits("key_ic", "key_ic", 100_000, T);
    await setup.close();
    const child = spawn(process.execPath, ["--import", "tsx", writer, dir, "key_ic"], {
      cwd: repo, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CRASH_NOW: String(T) },
    });
    const acked = new Map<number, number>();
    let partial = "";
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        const [, n, remaining] = line.split(" ");
        acked.set(Number(n), Number(remaining));
      }
      if (acked.size >= 500) child.kill("SIGKILL");
    });
    expect(await exited, `writer died on its own: ${stderr}`).toBe("SIGKILL");
    clearTimeout(timer);
    expect(acked.size).toBeGreaterThanOrEqual(500);
    const store = await createEmbeddedCounterStore({ dir });
    try {
      const balance = (await store.readCredits("key_ic", "key_ic"))!;
      for (const [n, remaining] of acked) {
        const idempotency = { scope: "ws_crash", key: `k${n}`, fingerprint: "fp", expiresAt: T + 3_600_000 };
        const replay = await store.consume({ tag: "key_ic", now: T + 1, limits: [], credits: { keyId: "key_ic", cost: 1 }, idempotency });
        expect({ n, ...replay }).toEqual({ n, outcome: "VALID", limits: [], credits: { remaining }, replayed: true });
      }
      expect(await store.readCredits("key_ic", "key_ic")).toBe(balance);
    } finally {
      await store.close();
    }
  }, 30_000);

  it("drops expired records (memory and journal) as new ones arrive", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedCounterStore({ dir });
    const step = (n: number, now: number) =>
      store.consume({ tag: "key_ip", now, limits: [], idempotency: { scope: "ws", key: `k${n}`, fingerprint: "fp", expiresAt: now + 60_000 } });
    try {
      for (let i = 0; i < 3_000; i++) await step(i, T);
      expect(store.stats().idempotency).toBe(3_000);
      // A minute later those have expired; the amortised sweep drops them while new ones come in.
      for (let i = 3_000; i < 6_000; i++) await step(i, T + 60_000);
      expect(store.stats().idempotency).toBeLessThanOrEqual(4_100);
      // An expired key is free again, a live one still replays.
      expect(await step(0, T + 60_000)).toEqual({ outcome: "VALID", limits: [] });
      expect(await step(5_999, T + 60_001)).toEqual({ outcome: "VALID", limits: [], replayed: true });
    } finally {
      await store.close();
    }
    const reopened = await createEmbeddedCounterStore({ dir });
    try {
      expect(reopened.stats().idempotency).toBeLessThanOrEqual(4_100);
    } finally {
      await reopened.close();
    }
  });
});

describe("embedded counters memory", () => {
  it("forgets rate-limit buckets once their windows can no longer be current or previous", async () => {
    const store = await createEmbeddedCounterStore({ dir: await tempDir() });
    try {
      const consumeAt = (now: number, bucket: string) =>
        store.consume({ tag: "key_m", now, limits: [{ bucket, limit: 10, duration: 60_000, cost: 1 }] });
      for (let i = 0; i < 3_000; i++) await consumeAt(T, `key:key_m:old${i}`);
      expect(store.stats().buckets).toBe(3_000);
      // One window later the old buckets are still the previous window: kept.
      for (let i = 0; i < 1_000; i++) await consumeAt(T + 60_000, `key:key_m:mid${i}`);
      expect(store.stats().buckets).toBe(4_000);
      // Two windows later they are dead; the sweep, amortised over new buckets, drops them.
      for (let i = 0; i < 5_000; i++) await consumeAt(T + 120_000, `key:key_m:new${i}`);
      expect(store.stats().buckets).toBeLessThanOrEqual(6_000);
      expect(store.stats().buckets).toBeGreaterThanOrEqual(5_000);
      // A live bucket keeps its count through sweeps.
      await consumeAt(T + 120_000, "key:key_m:new0");
      expect((await consumeAt(T + 120_000, "key:key_m:new0")).limits[0]!.remaining).toBe(7);
    } finally {
      await store.close();
    }
  });
});
