/**
 * `npm run bench:alloc`: what one request of a bench target allocates, by function. Keyward runs as `npm start` runs it
 * (the bundle) with V8's sampling heap profiler preloaded (alloc-sampler.mjs), which counts every sampled allocation,
 * also those a GC collected since; after a warm-up, exactly ALLOC_REQUESTS requests are sent between its start and
 * stop. Bytes per request do not depend on how busy the machine is, unlike req/s, so two trees compare run by run.
 * The functions are the bundle's (names and line numbers in .cache/server-*); Node's own are named by their file.
 *
 * Env: ALLOC_TARGET (a part of a target name of targets.ts; default `REST v2 keys.verifyKey (embedded)`),
 *      ALLOC_REQUESTS (50000), ALLOC_TOP (30 functions shown), ALLOC_SAVE (a file to keep the heap profile in, to see
 *      a function's callers, e.g. in Chrome DevTools' Memory tab).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { ensureH2load, sendCounted } from "./h2load.js";
import { probe } from "./probe.js";
import { envNumber, repoRoot, startServer } from "./servers.js";
import { servers, targets, type Target } from "./targets.js";

/** The part of V8's sampling heap profile read here (Chrome DevTools Protocol `HeapProfiler.SamplingHeapProfile`). */
export interface SamplingProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingProfileNode[];
}

export interface AllocationRow {
  /** `name file:line` (1-based line), `(anonymous)` for a function without a name. */
  site: string;
  bytesPerRequest: number;
  /** Of all bytes allocated. */
  share: number;
}

/** Bytes allocated per request by function (self size, summed over every call path), most first. */
export function allocationsByFunction(head: SamplingProfileNode, requests: number): { total: number; rows: AllocationRow[] } {
  const bySite = new Map<string, number>();
  let total = 0;
  const pending = [head];
  for (let node = pending.pop(); node; node = pending.pop()) {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || "(anonymous)"} ${url ? `${basename(url)}:${lineNumber + 1}` : "(native)"}`;
    if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    pending.push(...node.children);
  }
  const rows = [...bySite]
    .map(([site, bytes]) => ({ site, bytesPerRequest: bytes / requests, share: total === 0 ? 0 : bytes / total }))
    .sort((a, b) => b.bytesPerRequest - a.bytesPerRequest || a.site.localeCompare(b.site));
  return { total: total / requests, rows };
}

function chosenTarget(): Target {
  const part = (process.env.ALLOC_TARGET ?? "REST v2 keys.verifyKey (embedded)").toLowerCase();
  const target = targets.find((t) => !t.fixedRate && t.name.toLowerCase().includes(part) && servers[t.server].entry === "src/main.ts");
  if (!target) throw new Error(`ALLOC_TARGET: no Keyward target of bench/targets.ts is named like "${part}"`);
  if ("redis" in servers[target.server]) throw new Error(`${target.name}: targets on Redis counters are not profiled here`);
  return target;
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; !done(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

async function main(): Promise<void> {
  const requests = envNumber("ALLOC_REQUESTS", 50_000);
  const top = envNumber("ALLOC_TOP", 30);
  const target = chosenTarget();
  await ensureH2load();
  const workDir = mkdtempSync(join(tmpdir(), "keyward-alloc-"));
  const profilePath = join(workDir, "allocations.heapprofile");
  const spec = servers[target.server];
  const server = await startServer({
    ...spec,
    env: { ...("env" in spec ? spec.env : {}), ALLOC_PROFILE_PATH: profilePath },
    nodeArgs: ["--import", join(repoRoot, "bench", "alloc-sampler.mjs")],
  });
  try {
    const seed = target.setup ? await target.setup(server) : {};
    const ctx = { baseUrl: server.baseUrl, rootKey: server.rootKey, seed };
    const request = { url: server.baseUrl + target.path, protocol: target.protocol, method: target.method, headers: target.headers(ctx), body: target.body?.(ctx) };
    await probe(request);
    const load = { ...request, connections: 50, streamsPerConnection: target.streams ?? 1, workDir };
    await sendCounted({ ...load, count: Math.max(10_000, requests / 2) });
    process.kill(server.pid, "SIGUSR2");
    await until(() => existsSync(`${profilePath}.started`), "the profiler to start");
    const sent = await sendCounted({ ...load, count: requests });
    if (sent.done !== requests || sent.non2xx !== 0) throw new Error(`${target.name}: ${sent.done} of ${requests} answered, ${sent.non2xx} not 2xx`);
    process.kill(server.pid, "SIGUSR2");
    await until(() => existsSync(profilePath), "the profile");
    if (process.env.ALLOC_SAVE) copyFileSync(profilePath, process.env.ALLOC_SAVE);
    const { total, rows } = allocationsByFunction(JSON.parse(readFileSync(profilePath, "utf8")).head, requests);
    console.log(`${target.name}: ${Math.round(total)} B allocated per request (${requests} requests, node ${process.version})\n`);
    console.log("  B/req  share  function");
    for (const row of rows.slice(0, top)) {
      console.log(`${Math.round(row.bytesPerRequest).toString().padStart(7)}  ${(100 * row.share).toFixed(1).padStart(4)} %  ${row.site}`);
    }
  } finally {
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
