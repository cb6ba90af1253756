/**
 * Running h2load and reading its results. h2load speaks HTTP/1.1 and h2c, so every target is measured by
 * the same tool with the same settings. Its summary gives req/s and status classes; percentiles come from
 * its per-request log (`--log-file`), which covers the main duration only (warm-up requests are not logged).
 */
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { killOnExit } from "./servers.js";

export interface LoadOptions {
  url: string;
  protocol: "h1" | "h2c";
  headers: Record<string, string>;
  /** Sent as the body of every request; h2load then uses POST. */
  body?: Uint8Array;
  connections: number;
  /** Concurrent streams per connection (h2load `-m`); 1 unless a target multiplexes. */
  streamsPerConnection: number;
  seconds: number;
  warmUpSeconds: number;
  /** Each run makes its own folder here for its body and log files. */
  workDir: string;
  /** A fixed offered load in req/s over all connections (h2load --rps takes it per connection); none: as fast as it goes. */
  rps?: number;
}

export interface LoadResult {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** 3xx, 4xx and 5xx answers. */
  non2xx: number;
  /** Requests that got no answer (connection errors, timeouts). */
  failed: number;
}

export interface H2loadSummary {
  reqPerSec: number;
  total: number;
  done: number;
  errored: number;
  timeout: number;
  status: { "2xx": number; "3xx": number; "4xx": number; "5xx": number };
}

/**
 * Makes sure `h2load` is on PATH, installing Debian's nghttp2-client if it is not (needs root), and
 * returns its version line.
 */
export function ensureH2load(): string {
  try {
    return h2loadVersion();
  } catch {
    console.log("bench: h2load not found, installing nghttp2-client (apt-get)");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update"], { stdio: "inherit", env });
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "nghttp2-client"], { stdio: "inherit", env });
    return h2loadVersion();
  }
}

function h2loadVersion(): string {
  return execFileSync("h2load", ["--version"], { encoding: "utf8" }).trim();
}

/**
 * Runs one duration-based h2load measurement, by default with one stream per connection (`-m 1`, so h2c is
 * comparable with HTTP/1.1). Rejects if h2load fails or overruns warm-up + duration by 30 s.
 */
export async function runH2load(options: LoadOptions): Promise<LoadResult> {
  // A fresh folder per run: h2load appends to an existing --log-file.
  const runDir = mkdtempSync(join(options.workDir, "run-"));
  const logPath = join(runDir, "requests.log");
  const args = [
    "-c", String(options.connections),
    "-m", String(options.streamsPerConnection),
    "-t", "1",
    "-D", String(options.seconds),
    "--warm-up-time", String(options.warmUpSeconds),
    "--log-file", logPath,
  ];
  if (options.rps !== undefined) args.push("--rps", String(perConnectionRps(options.rps, options.connections)));
  args.push(...requestArgs(options, runDir));

  const output = await run("h2load", args, (options.warmUpSeconds + options.seconds + 30) * 1_000);
  const summary = parseH2loadSummary(output);
  const latency = summariseRequestLog(readFileSync(logPath, "utf8"));
  const keepIn = process.env.BENCH_KEEP_LOGS;
  if (keepIn) copyFileSync(logPath, join(keepIn, `${Date.now()}-${options.rps ?? "max"}.log`));
  rmSync(runDir, { recursive: true, force: true });
  // A cheap check that the log is this run's and complete.
  if (latency.count !== summary.done) {
    throw new Error(`h2load logged ${latency.count} answered requests but reports ${summary.done} done`);
  }
  return {
    requests: summary.done,
    reqPerSec: summary.reqPerSec,
    p50Ms: latency.p50Ms,
    p99Ms: latency.p99Ms,
    meanMs: latency.meanMs,
    // The summary leaves out statuses received during the warm-up; the log has them for boundary requests.
    non2xx: Math.max(summary.status["3xx"] + summary.status["4xx"] + summary.status["5xx"], latency.non2xx),
    failed: summary.errored + summary.timeout,
  };
}

/** h2load's --rps is per connection: the whole rate spread over them, at least 1. */
export function perConnectionRps(total: number, connections: number): number {
  return Math.max(1, Math.round(total / connections));
}

/**
 * Sends exactly `count` requests (h2load `-n`, no warm-up) and returns how many were answered and how many with a
 * status other than 2xx: the known amount the metrics cross-check compares `/metrics` with.
 */
export async function sendCounted(options: Omit<LoadOptions, "seconds" | "warmUpSeconds"> & { count: number }): Promise<{ done: number; non2xx: number }> {
  const runDir = mkdtempSync(join(options.workDir, "count-"));
  const args = ["-n", String(options.count), "-c", String(options.connections), "-m", String(options.streamsPerConnection), "-t", "1"];
  args.push(...requestArgs(options, runDir));
  try {
    const summary = parseH2loadSummary(await run("h2load", args, 120_000));
    return { done: summary.done, non2xx: summary.status["3xx"] + summary.status["4xx"] + summary.status["5xx"] };
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}

/** The request's part of an h2load command line: protocol, headers, body (written into `runDir`), URL. */
function requestArgs(options: Pick<LoadOptions, "protocol" | "headers" | "body" | "url">, runDir: string): string[] {
  const args: string[] = [];
  if (options.protocol === "h1") args.push("--h1");
  for (const [name, value] of Object.entries(options.headers)) args.push("-H", `${name}: ${value}`);
  if (options.body !== undefined) {
    const bodyPath = join(runDir, "body.bin");
    writeFileSync(bodyPath, options.body);
    args.push("-d", bodyPath);
  }
  args.push(options.url);
  return args;
}

function run(command: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    killOnExit(child);
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(" ")} ended with ${code ?? signal}:\n${output.slice(-3_000)}`));
    });
  });
}

/** Reads req/s, request counts and status classes from h2load's summary; throws if a line is missing. */
export function parseH2loadSummary(output: string): H2loadSummary {
  const finished = /finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(output);
  const requests =
    /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(
      output,
    );
  const status = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(output);
  if (!finished || !requests || !status) throw new Error(`unexpected h2load output:\n${output.slice(-3_000)}`);
  return {
    reqPerSec: Number(finished[1]),
    total: Number(requests[1]),
    done: Number(requests[3]),
    errored: Number(requests[6]),
    timeout: Number(requests[7]),
    status: { "2xx": Number(status[1]), "3xx": Number(status[2]), "4xx": Number(status[3]), "5xx": Number(status[4]) },
  };
}

/**
 * Latency percentiles (nearest rank) and mean, in ms, and the count of >= 300 statuses, from h2load's
 * `--log-file` rows (`start µs \t status \t µs until end of response`). A request that started in the
 * warm-up and ended in the main duration is logged with status 0; its latency counts all the same.
 */
export function summariseRequestLog(text: string): {
  count: number;
  non2xx: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
} {
  const micros: number[] = [];
  let non2xx = 0;
  for (const line of text.split("\n")) {
    const [, status, duration] = line.split("\t");
    if (duration === undefined) continue;
    micros.push(Number(duration));
    if (Number(status) >= 300) non2xx++;
  }
  if (micros.length === 0) return { count: 0, non2xx, p50Ms: NaN, p99Ms: NaN, meanMs: NaN };
  const sorted = Float64Array.from(micros).sort();
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    non2xx,
    p50Ms: percentile(sorted, 50) / 1_000,
    p99Ms: percentile(sorted, 99) / 1_000,
    meanMs: sum / sorted.length / 1_000,
  };
}

/** Nearest-rank percentile of ascending `sorted` values: the smallest value with at least p% at or below it. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}
