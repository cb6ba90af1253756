/**
 * `npm run bench:analytics` (also run by `npm run bench`): verification analytics on the embedded store.
 * Stores 1,000,000 events of 1,000 keys over one UTC day, then times the dashboard query — hourly buckets of that
 * day, grouped by outcome — at the store (cold: segments parsed from disk; warm: the column cache) and through
 * REST v2 `analytics.getVerifications` on a real server. Target: warm p50 <= 250 ms. Writes
 * bench/results/analytics.json. Env: BENCH_ANALYTICS_EVENTS (1000000), BENCH_ANALYTICS_RUNS (20).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.js";
import { bootstrap } from "../src/bootstrap.js";
import { createEmbeddedEventStore } from "../src/store/embedded/events.js";
import { openStores } from "../src/open-stores.js";
import type { AnalyticsQuery } from "../src/store/analytics-query.js";
import type { VerificationEvent, VerificationEventStore } from "../src/store/ports/events.js";
import { listen } from "../src/transport/server.js";

const EVENTS = Number(process.env.BENCH_ANALYTICS_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_ANALYTICS_RUNS ?? 20);
const KEYS = 1000;
const DAY_START = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
const OUTCOMES = ["VALID", "VALID", "VALID", "VALID", "VALID", "VALID", "RATE_LIMITED", "USAGE_EXCEEDED"];

/** Spreads EVENTS over the day in time order, keys and outcomes round-robin, a tag on every other event. */
async function fill(store: VerificationEventStore, workspaceId: string, apiId: string): Promise<void> {
  const step = DAY / EVENTS;
  for (let i = 0; i < EVENTS; i++) {
    const event: VerificationEvent = {
      time: DAY_START + Math.floor(i * step), workspaceId, apiId, keyId: `key_bench${i % KEYS}`, outcome: OUTCOMES[i % OUTCOMES.length],
      tags: i % 2 === 0 ? ["path=/v1/items"] : [], creditsSpent: i % 3 === 0 ? 1 : 0, latencyMs: 0.2, requestId: `req_bench${i}`,
    };
    store.record(event);
    if (i % 50_000 === 49_999) await store.flush();
  }
  await store.flush();
}

async function timeRuns(label: string, run: () => Promise<unknown>): Promise<{ label: string; p50: number; min: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const row = { label, p50: round(times[Math.floor(times.length / 2)]), min: round(times[0]), max: round(times[times.length - 1]) };
  console.log(`bench analytics: ${label}: p50 ${row.p50} ms (min ${row.min}, max ${row.max}, ${RUNS} runs)`);
  return row;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-bench-analytics-"));
  try {
    const stores = await openStores({ dataDir: dir });
    const rootKey = `kw_bench_${randomBytes(12).toString("hex")}`;
    await bootstrap({ documents: stores.documents, clock: { now: () => Date.now() }, randomBytes: (n) => new Uint8Array(randomBytes(n)), rootKey, print: () => {} });
    const [workspace] = await stores.documents.workspaces.list({ limit: 1 });
    const apiId = "api_bench";
    let started = performance.now();
    await fill(stores.events, workspace.id, apiId);
    const fillMs = round(performance.now() - started);
    console.log(`bench analytics: stored ${EVENTS} events of ${KEYS} keys in ${fillMs} ms`);

    const query: AnalyticsQuery = { workspaceId: workspace.id, start: DAY_START, end: DAY_START + DAY, granularity: "hour", groupBy: ["outcome"] };
    // Cold: a store opened afresh on the same files parses every segment once.
    const reopened = await createEmbeddedEventStore({ dir });
    started = performance.now();
    const rows = await reopened.query(query);
    const coldMs = round(performance.now() - started);
    const total = rows.reduce((n, row) => n + row.total, 0);
    if (total !== EVENTS || rows.length !== 24 * 3) throw new Error(`wrong answer: ${rows.length} rows, ${total} events`);
    console.log(`bench analytics: store cold (parse from disk): ${coldMs} ms`);
    const store = await timeRuns("store warm", () => reopened.query(query));
    await reopened.close();

    const app = createApp({ ...stores });
    const server = await listen(app, { port: 0, host: "127.0.0.1" });
    const body = JSON.stringify({ start: DAY_START, end: DAY_START + DAY, granularity: "hour", groupBy: ["outcome"] });
    const call = async () => {
      const response = await fetch(`http://127.0.0.1:${server.port}/v2/analytics.getVerifications`, {
        method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${rootKey}` }, body,
      });
      const json = (await response.json()) as { data: unknown[] };
      if (response.status !== 200 || json.data.length !== 72) throw new Error(`REST answered ${response.status}`);
    };
    await call(); // the server's own event store parses the segments once
    const rest = await timeRuns("REST v2 warm", call);
    await server.close();
    await app.stop();
    await stores.close();

    const result = {
      finishedAt: new Date().toISOString(), machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      events: EVENTS, keys: KEYS, query: "one UTC day, hourly buckets, grouped by outcome", fillMs, coldMs, store, rest, targetP50Ms: 250,
    };
    const resultsDir = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "results");
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, "analytics.json"), JSON.stringify(result, null, 2) + "\n");
    if (rest.p50 > 250 || store.p50 > 250) console.log("bench analytics: ABOVE the 250 ms p50 target");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
