/**
 * Disk use of the embedded counter store under a long verification run (not a timed test):
 * `JOURNAL_VERIFICATIONS=1000000 npx tsx bench/journal-growth.ts`.
 *
 * Drives N consumes through the real embedded counter store the way a VALID verification does: 1,000 keys (every
 * tenth owned by an identity, so its tag differs from its key id), each with credits (half of them with a daily
 * refill) and a 60 s rate limit, 64 consumes in flight, simulated time advancing 0.1 ms per verification
 * (10,000 verifications per second). It samples the data directory's size every 10,000 consumes (the peak),
 * times every consume, then closes the store and prints the journal's bytes on disk, the directory's bytes and
 * the time to reopen the store (twice: the first open may compact). Every balance is checked against a model.
 * Env: JOURNAL_VERIFICATIONS (1000000), JOURNAL_KEYS (1000), JOURNAL_CONCURRENCY (64), JOURNAL_DIR (a temp dir,
 * removed afterwards unless given).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newId } from "../src/domain/ids.js";
import { latestRefillBoundary } from "../src/domain/refill-calendar.js";
import { bucketOf, counterTag, type AppliedLimit } from "../src/domain/verification.js";
import { createEmbeddedCounterStore, type EmbeddedCounterStore } from "../src/store/embedded/counters.js";
import type { ConsumePlan } from "../src/store/ports/counters.js";

const N = Number(process.env.JOURNAL_VERIFICATIONS ?? 1_000_000);
const KEYS = Number(process.env.JOURNAL_KEYS ?? 1_000);
const CONCURRENCY = Number(process.env.JOURNAL_CONCURRENCY ?? 64);
for (const [name, value] of [["JOURNAL_VERIFICATIONS", N], ["JOURNAL_KEYS", KEYS], ["JOURNAL_CONCURRENCY", CONCURRENCY]] as const) {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1, got ${value}`);
}
const T0 = Date.UTC(2030, 0, 1, 1); // 01:00 UTC: the run stays within the day, so no daily refill falls due
const SAMPLE_EVERY = 10_000;

interface BenchKey {
  keyId: string;
  identityId?: string;
  refill?: { interval: "daily" };
  spent: number;
}

/** Bytes of the files directly in `dir`, and of those whose name starts with "journal". */
async function sizeOf(dir: string): Promise<{ dir: number; journal: number; files: number }> {
  const out = { dir: 0, journal: 0, files: 0 };
  for (const name of await readdir(dir)) {
    const size = await stat(join(dir, name)).then((s) => s.size, () => 0); // a file may vanish mid-listing
    out.dir += size;
    out.files += 1;
    if (name.startsWith("journal")) out.journal += size;
  }
  return out;
}

function planFor(key: BenchKey, now: number): ConsumePlan {
  const ids = { keyId: key.keyId, identityId: key.identityId };
  const limit: AppliedLimit = { id: "rl_bench", name: "minute", owner: "key", limit: 100_000, duration: 60_000, autoApply: true, cost: 1 };
  return {
    tag: counterTag(ids),
    now,
    limits: [{ bucket: bucketOf(limit, ids), limit: limit.limit, duration: limit.duration, cost: limit.cost }],
    credits: { keyId: key.keyId, cost: 1, refill: key.refill && { boundary: latestRefillBoundary(key.refill, now), amount: N } },
  };
}

async function reopen(dir: string, keys: BenchKey[]): Promise<number> {
  const started = performance.now();
  const store = await createEmbeddedCounterStore({ dir });
  const ms = performance.now() - started;
  try {
    for (const key of keys) {
      const remaining = await store.readCredits(counterTag(key), key.keyId);
      if (remaining !== N - key.spent) throw new Error(`${key.keyId}: balance ${remaining} after reopen, expected ${N - key.spent}`);
    }
  } finally {
    await store.close();
  }
  return ms;
}

const MiB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

async function main(): Promise<void> {
  const dir = process.env.JOURNAL_DIR ?? (await mkdtemp(join(tmpdir(), "keyward-journal-growth-")));
  const keys: BenchKey[] = Array.from({ length: KEYS }, (_, i) => ({
    keyId: newId("key", T0 + i, randomBytes),
    identityId: i % 10 === 0 ? newId("id", T0 + i, randomBytes) : undefined,
    refill: i % 2 === 0 ? { interval: "daily" } : undefined,
    spent: 0,
  }));
  try {
    const store: EmbeddedCounterStore = await createEmbeddedCounterStore({ dir });
    for (const key of keys) await store.setCredits(counterTag(key), key.keyId, N, T0);

    const latencies = new Float64Array(N);
    let next = 0;
    let peak = await sizeOf(dir);
    let sampling: Promise<void> | undefined;
    const started = performance.now();
    async function worker(): Promise<void> {
      while (next < N) {
        const i = next++;
        const key = keys[i % KEYS]!;
        const t = performance.now();
        const result = await store.consume(planFor(key, T0 + Math.floor(i / 10)));
        latencies[i] = performance.now() - t;
        if (result.outcome !== "VALID") throw new Error(`consume ${i} answered ${result.outcome}`);
        key.spent += 1;
        if (i % SAMPLE_EVERY === 0 && !sampling) {
          sampling = sizeOf(dir).then((size) => {
            if (size.dir > peak.dir) peak = size;
            sampling = undefined;
          });
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const runMs = performance.now() - started;
    await sampling;
    await store.close();

    const closed = await sizeOf(dir);
    if (closed.dir > peak.dir) peak = closed;
    const firstOpenMs = await reopen(dir, keys);
    const reopened = await sizeOf(dir);
    const secondOpenMs = await reopen(dir, keys);
    latencies.sort();
    const pct = (p: number) => latencies[Math.min(N - 1, Math.floor(p * N))]!.toFixed(2);

    console.log(`journal growth: ${N} VALID consumes over ${KEYS} keys, ${CONCURRENCY} in flight, dir ${dir}`);
    console.log(`run: ${(runMs / 1000).toFixed(1)} s = ${Math.round(N / (runMs / 1000))} consumes/s; consume latency ms p50 ${pct(0.5)} p99 ${pct(0.99)} p99.9 ${pct(0.999)} max ${latencies[N - 1]!.toFixed(2)}`);
    console.log(`| after ${N} consumes | bytes | MiB |`);
    console.log(`|---|---|---|`);
    console.log(`| journal files on disk at close (${closed.files} files in dir) | ${closed.journal} | ${MiB(closed.journal)} |`);
    console.log(`| data directory at close | ${closed.dir} | ${MiB(closed.dir)} |`);
    console.log(`| data directory, peak sampled during the run | ${peak.dir} | ${MiB(peak.dir)} |`);
    console.log(`| journal files after the first reopen | ${reopened.journal} | ${MiB(reopened.journal)} |`);
    console.log(`reopen: first ${firstOpenMs.toFixed(0)} ms, second ${secondOpenMs.toFixed(0)} ms (every balance checked against the model)`);
  } finally {
    if (!process.env.JOURNAL_DIR) await rm(dir, { recursive: true, force: true });
  }
}

await main();
