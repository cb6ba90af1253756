/**
 * `npm run bench`: every target of targets.ts under the same h2load settings, one server process at a
 * time, then a table (req/s, p50, p99, CPU µs, bytes promoted and GC share per request, non-2xx, ratios to the bare
 * handlers and to the hand-rolled peers), the fixed-rate latency rows, and bench/results/latest.json.
 * Exits non-zero if any target answered anything but 2xx (or a gRPC probe a non-zero grpc-status).
 *
 * Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
 *      BENCH_ROUNDS (1; with more, every server is measured once per round and the table shows each target's median),
 *      BENCH_ONLY (comma-separated parts of target names; the two bare references always run, and so do the peers
 *      and fixed-rate baselines of the rows chosen),
 *      BENCH_KEEP_LOGS (a folder: each run's h2load request log is copied there, `<time>-<rps or max>.log`, to see
 *      when the slow requests of a row came).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { join } from "node:path";
import { ensureH2load, perConnectionRps, runH2load, sendCounted } from "./h2load.js";
import { probe } from "./probe.js";
import { startRedisServer } from "../scripts/redis-server.mjs";
import { cpuTimeMs, envNumber, repoRoot, startServer, tail, tempDir, type ServerSpec } from "./servers.js";
import { gcBetween, logOffset } from "./gc-trace.js";
import { medianOfRounds, peerOf, setRatios, type Row } from "./rows.js";
import { bareH2Name, baselineName, serverProcesses, servers, targets, type ServerName, type Target } from "./targets.js";

/** Requests of the counted run that follows each Keyward target (its `/metrics` must count exactly these). */
const COUNTED_REQUESTS = 5_000;

/** The sum of every `keyward_requests_total` series: all requests the server has counted so far. */
async function requestsCounted(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) if (line.startsWith("keyward_requests_total{")) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

/**
 * requestsCounted once it stopped moving: a timed run ends with requests still in flight (one per connection at -m1),
 * which the server answers and counts a moment later. Counted after `before` was read, they showed as a mismatch of
 * exactly the run's 50 connections on a slower target (gRPC on Redis counters).
 */
async function settledRequestsCounted(baseUrl: string): Promise<number> {
  let counted = await requestsCounted(baseUrl);
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await requestsCounted(baseUrl);
    if (again === counted) return counted;
    counted = again;
  }
  return counted;
}

type Config = ReturnType<typeof readConfig>;

function readConfig() {
  return {
    connections: envNumber("BENCH_CONNECTIONS", 50),
    seconds: envNumber("BENCH_SECONDS", 10),
    warmUpSeconds: envNumber("BENCH_WARMUP_SECONDS", 2),
    rounds: envInteger("BENCH_ROUNDS", 1),
    streamsPerConnection: 1,
  };
}

function envInteger(name: string, fallback: number): number {
  const value = envNumber(name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got ${process.env[name]}`);
  return value;
}

function selectTargets(): Target[] {
  const only = (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (only.length === 0) return targets;
  const references = (t: Target) => !t.fixedRate && (t.name === baselineName || t.name.startsWith(bareH2Name));
  const chosen = targets.filter((t) => only.some((part) => t.name.toLowerCase().includes(part)));
  // A chosen row's peers and, at a fixed rate, the bare handler's row at the same load: its numbers mean nothing without them.
  const asRow = (t: Target) => ({ name: t.name, protocol: t.protocol, streams: t.streams ?? 1, fixedRate: t.fixedRate }) as Row;
  const peer = (t: Target) => chosen.some((c) => c.versus?.some((m) => peerOf(asRow(c), [asRow(t)], m)));
  const baseline = (t: Target) => t.fixedRate?.isBaseline && chosen.some((c) => c.fixedRate?.capacityOf === t.fixedRate!.capacityOf);
  return targets.filter((t) => references(t) || chosen.includes(t) || peer(t) || baseline(t));
}

/**
 * The offered load of a fixed-rate row: half the req/s `capacityOf` reached earlier in this round, as h2load offers it
 * (a whole number per connection).
 */
function halfCapacity(target: Target, measured: Row[], connections: number): number | undefined {
  if (!target.fixedRate) return undefined;
  const reference = measured.find((r) => r.name === target.fixedRate!.capacityOf);
  if (!reference) throw new Error(`${target.name}: ${target.fixedRate.capacityOf} must be measured before it in the round`);
  return perConnectionRps(reference.reqPerSec / 2, connections) * connections;
}

/** Measures `group` on one server process; `measured` holds the rows of this round so far (fixed rates read them). */
async function measureServer(name: ServerName, group: Target[], config: Config, workDir: string, measured: Row[]): Promise<Row[]> {
  console.log(`\nbench: starting ${name} (${servers[name].entry})`);
  const spec: ServerSpec = servers[name];
  const redis = spec.redis ? await startRedisServer() : undefined;
  const server = await startServer(redis ? { ...spec, env: { ...spec.env, REDIS_URL: redis.url } } : spec, { traceGc: true }).catch(async (error) => {
    await redis?.stop();
    throw error;
  });
  const rows: Row[] = [];
  try {
    for (const target of group) {
      if ((target.method === "POST") !== (target.body !== undefined)) {
        throw new Error(`${target.name}: h2load sends POST exactly when there is a body`);
      }
      const seed = target.setup ? await target.setup(server) : {};
      const ctx = { baseUrl: server.baseUrl, rootKey: server.rootKey, seed };
      const request = {
        url: server.baseUrl + target.path,
        protocol: target.protocol,
        method: target.method,
        headers: target.headers(ctx),
        body: target.body?.(ctx),
      };
      await probe(request);
      const rps = halfCapacity(target, [...measured, ...rows], config.connections);
      console.log(`bench: ${target.name}: ${config.warmUpSeconds}s warm-up + ${config.seconds}s load${rps === undefined ? "" : ` at ${rps.toFixed(0)} req/s`}`);
      const streams = target.streams ?? config.streamsPerConnection;
      const cpuBefore = cpuTimeMs(server.pid);
      const logBefore = logOffset(server.logPath);
      const result = await runH2load({ ...request, ...config, streamsPerConnection: streams, workDir, rps });
      const cpuAfter = cpuTimeMs(server.pid);
      const gc = gcBetween(server.logPath, logBefore, logOffset(server.logPath));
      // CPU and GC over warm-up + load, per request at the measured rate: estimates, good for comparing rows.
      const requests = result.reqPerSec * (config.warmUpSeconds + config.seconds);
      const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? null : cpuAfter - cpuBefore;
      const row: Row = {
        name: target.name, protocol: target.protocol, streams, path: target.path, ...result,
        cpuUsPerRequest: cpuMs === null ? null : (cpuMs * 1_000) / requests,
        promotedBytesPerRequest: requests > 0 ? gc.promotedBytes / requests : null,
        gcShare: cpuMs ? gc.pauseMs / cpuMs : null,
        maxGcPauseMs: gc.count > 0 ? gc.maxPauseMs : null,
        ratioToBare: null, ratioToBareH2: null,
        ...(target.versus && { versus: target.versus }),
        ...(target.fixedRate && { fixedRate: { ...target.fixedRate, isBaseline: target.fixedRate.isBaseline ?? false, offeredRps: rps!, p99VsBaseline: null, ofOwnCapacity: null } }),
      };
      if (name.startsWith("keyward") && !target.fixedRate) {
        // The metrics cross-check: a known number of requests, then /metrics must show exactly that many more.
        const before = await settledRequestsCounted(server.baseUrl);
        const sent = await sendCounted({ ...request, connections: 10, streamsPerConnection: streams, count: COUNTED_REQUESTS, workDir });
        if (sent.non2xx > 0) row.non2xx += sent.non2xx;
        row.metrics = { sent: sent.done, counted: (await requestsCounted(server.baseUrl)) - before };
      }
      rows.push(row);
    }
  } catch (error) {
    console.error(`bench: ${name} server log (end):\n${tail(server.logPath)}`);
    throw error;
  } finally {
    await server.stop();
    await redis?.stop();
  }
  return rows;
}

const fixed = (value: number | null | undefined, digits: number, suffix = "") => (value == null ? "-" : value.toFixed(digits) + suffix);

/** Keyward's req/s as a multiple of each peer's, e.g. `0.45× memory peer, 1.20× SQLite peer`. */
const versusCell = (r: Row) =>
  Object.entries(r.versusPeers ?? {}).map(([label, ratio]) => `${fixed(ratio, 2, "×")} ${label}`).join(", ");

function formatTable(rows: Row[]): string {
  const header = [
    "target", "proto", "-m", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "promoted B/req", "GC %", "max GC ms", "non-2xx", "failed", "vs bare", "vs bare h2", "Keyward vs the peer",
  ];
  const lines = rows.filter((r) => !r.fixedRate).map((r) => [
    r.name,
    r.protocol,
    String(r.streams),
    r.reqPerSec.toFixed(0),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    fixed(r.cpuUsPerRequest, 0),
    fixed(r.promotedBytesPerRequest, 0),
    fixed(r.gcShare === null ? null : r.gcShare * 100, 1),
    fixed(r.maxGcPauseMs, 1),
    String(r.non2xx),
    String(r.failed),
    fixed(r.ratioToBare, 2),
    fixed(r.ratioToBareH2, 2),
    versusCell(r),
  ]);
  return alignColumns(header, lines);
}

/** The rows at a fixed offered load: latency beside the bare handler's at the same load. */
function formatFixedRateTable(rows: Row[]): string {
  const header = ["target at a fixed offered load", "proto", "offered req/s", "of own max", "req/s", "p50 ms", "p99 ms", "p99 vs bare", "CPU µs/req", "promoted B/req", "GC %", "max GC ms"];
  const lines = rows.filter((r) => r.fixedRate).map((r) => [
    r.name,
    r.protocol,
    r.fixedRate!.offeredRps.toFixed(0),
    fixed(r.fixedRate!.ofOwnCapacity === null ? null : r.fixedRate!.ofOwnCapacity * 100, 0, " %"),
    // Short of the offered load: the server could not keep up, so its latency includes queueing.
    r.reqPerSec.toFixed(0) + (r.reqPerSec < 0.95 * r.fixedRate!.offeredRps ? " (saturated)" : ""),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    fixed(r.fixedRate!.p99VsBaseline, 2, "×"),
    fixed(r.cpuUsPerRequest, 0),
    fixed(r.promotedBytesPerRequest, 0),
    fixed(r.gcShare === null ? null : r.gcShare * 100, 1),
    fixed(r.maxGcPauseMs, 1),
  ]);
  return alignColumns(header, lines);
}

function alignColumns(header: string[], lines: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [format(header), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(format)].join("\n");
}

async function main(): Promise<void> {
  const config = readConfig();
  const h2loadVersion = ensureH2load();
  const machine = {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model ?? "unknown",
    node: process.version,
    h2load: h2loadVersion,
    platform: `${process.platform}-${process.arch}`,
  };
  const workDir = tempDir("keyward-h2load-");
  const rounds: Row[][] = [];
  try {
    // Rounds visit every server in turn, so a stretch of a slower machine falls on all targets alike.
    for (let round = 1; round <= config.rounds; round++) {
      if (config.rounds > 1) console.log(`\nbench: round ${round} of ${config.rounds}`);
      const rows: Row[] = [];
      const chosen = selectTargets();
      for (const { server, targets } of serverProcesses(chosen)) rows.push(...(await measureServer(server, targets, config, workDir, rows)));
      // Shown in the order of targets.ts, whatever process measured them.
      const order = new Map(chosen.map((t, i) => [t.name, i]));
      rounds.push(setRatios(rows.sort((a, b) => order.get(a.name)! - order.get(b.name)!)));
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const rows = medianOfRounds(rounds);

  console.log(
    `\n${machine.cores} cores (${machine.cpu}), node ${machine.node}, ${machine.h2load}, ` +
      `${config.connections} connections x ${config.streamsPerConnection} stream (unless -m says otherwise), ` +
      `${config.seconds}s per target after ${config.warmUpSeconds}s warm-up` +
      (config.rounds > 1 ? `; median of ${config.rounds} rounds (ratios taken within each round)\n` : "\n"),
  );
  console.log(formatTable(rows));
  if (rows.some((r) => r.fixedRate)) {
    console.log(
      "\nLatency at a fixed offered load (h2load --rps): half the bare handler's req/s measured in the same round;" +
        " of own max: that load over the same target's req/s at full load in the round (near 100 %, p99 is mostly queueing)\n",
    );
    console.log(formatFixedRateTable(rows));
  }
  console.log(
    "\npromoted B/req: bytes the server's GC moved to the old generation per request; GC %: GC pauses over the server's CPU time;" +
      " max GC ms: the longest single pause, in the worst round (all from --trace-gc-nvp over warm-up + load)",
  );
  const checked = rows.filter((r) => r.metrics);
  if (checked.length > 0) {
    console.log(`\n/metrics cross-check (keyward_requests_total, summed, before and after ${COUNTED_REQUESTS} counted requests per Keyward target):`);
    for (const r of checked) console.log(`  ${r.name}: sent ${r.metrics!.sent}, counted ${r.metrics!.counted}${r.metrics!.sent === r.metrics!.counted ? "" : "  MISMATCH"}`);
  }

  const resultsDir = join(repoRoot, "bench", "results");
  mkdirSync(resultsDir, { recursive: true });
  const outPath = join(resultsDir, "latest.json");
  writeFileSync(outPath, JSON.stringify({ finishedAt: new Date().toISOString(), machine, config, results: rows, rounds }, null, 2) + "\n");
  console.log(`\nbench: wrote ${outPath}`);

  const broken = rows.filter((r) => r.non2xx > 0 || r.failed > 0 || r.requests === 0 || (r.metrics && r.metrics.sent !== r.metrics.counted));
  if (broken.length > 0) {
    throw new Error(`targets with errors (numbers are not valid): ${broken.map((r) => r.name).join(", ")}`);
  }
}

main().catch((error: unknown) => {
  console.error(`\nbench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  // exit (not exitCode) so the exit hook kills any child still running
  process.exit(1);
});
