/**
 * `npm run bench`: every target of targets.ts under the same h2load settings, one server process at a
 * time, then a table (req/s, p50, p99, non-2xx, ratio to the bare handler) and bench/results/latest.json.
 * Exits non-zero if any target answered anything but 2xx (or a gRPC probe a non-zero grpc-status).
 *
 * Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
 *      BENCH_ROUNDS (1; with more, every server is measured once per round and the table shows each target's median),
 *      BENCH_ONLY (comma-separated parts of target names; the two bare references always run).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { join } from "node:path";
import { ensureH2load, runH2load, sendCounted } from "./h2load.js";
import { probe } from "./probe.js";
import { startRedisServer } from "../scripts/redis-server.mjs";
import { cpuTimeMs, envNumber, repoRoot, startServer, tail, tempDir, type ServerSpec } from "./servers.js";
import { medianOfRounds, setRatios, type Row } from "./rows.js";
import { bareH2Name, baselineName, servers, targets, type ServerName, type Target } from "./targets.js";

/** Requests of the counted run that follows each Keyward target (its `/metrics` must count exactly these). */
const COUNTED_REQUESTS = 5_000;

/** The sum of every `keyward_requests_total` series: all requests the server has counted so far. */
async function requestsCounted(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) if (line.startsWith("keyward_requests_total{")) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
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
  const references = (t: Target) => t.name === baselineName || t.name.startsWith(bareH2Name);
  return targets.filter((t) => references(t) || only.some((part) => t.name.toLowerCase().includes(part)));
}

/** Targets grouped by server, servers in order of first appearance. */
function byServer(list: Target[]): Map<ServerName, Target[]> {
  const groups = new Map<ServerName, Target[]>();
  for (const t of list) groups.set(t.server, [...(groups.get(t.server) ?? []), t]);
  return groups;
}

async function measureServer(name: ServerName, group: Target[], config: Config, workDir: string): Promise<Row[]> {
  console.log(`\nbench: starting ${name} (${servers[name].entry})`);
  const spec: ServerSpec = servers[name];
  const redis = spec.redis ? await startRedisServer() : undefined;
  const server = await startServer(redis ? { ...spec, env: { ...spec.env, REDIS_URL: redis.url } } : spec).catch(async (error) => {
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
      console.log(`bench: ${target.name}: ${config.warmUpSeconds}s warm-up + ${config.seconds}s load`);
      const streams = target.streams ?? config.streamsPerConnection;
      const cpuBefore = cpuTimeMs(server.pid);
      const result = await runH2load({ ...request, ...config, streamsPerConnection: streams, workDir });
      const cpuAfter = cpuTimeMs(server.pid);
      // CPU over warm-up + load, per request at the measured rate: an estimate, good for comparing rows.
      const cpuUsPerRequest = cpuBefore === undefined || cpuAfter === undefined
        ? null
        : ((cpuAfter - cpuBefore) * 1_000) / (result.reqPerSec * (config.warmUpSeconds + config.seconds));
      const row: Row = {
        name: target.name, protocol: target.protocol, streams, path: target.path, ...result, cpuUsPerRequest, ratioToBare: null, ratioToBareH2: null,
      };
      if (name.startsWith("keyward")) {
        // The metrics cross-check: a known number of requests, then /metrics must show exactly that many more.
        const before = await requestsCounted(server.baseUrl);
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

function formatTable(rows: Row[]): string {
  const header = ["target", "proto", "-m", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "non-2xx", "failed", "vs bare", "vs bare h2"];
  const lines = rows.map((r) => [
    r.name,
    r.protocol,
    String(r.streams),
    r.reqPerSec.toFixed(0),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    r.cpuUsPerRequest === null ? "-" : r.cpuUsPerRequest.toFixed(0),
    String(r.non2xx),
    String(r.failed),
    r.ratioToBare === null ? "-" : r.ratioToBare.toFixed(2),
    r.ratioToBareH2 === null ? "-" : r.ratioToBareH2.toFixed(2),
  ]);
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
      for (const [name, group] of byServer(selectTargets())) rows.push(...(await measureServer(name, group, config, workDir)));
      rounds.push(setRatios(rows));
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
