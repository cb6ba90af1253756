/**
 * The embedded counter step alone: `consume()` planned as a REST verification of the bench key plans it (credits and
 * one rate limit), 50 in flight, so every turn's commits share one journal write as under load. Per call: CPU µs, and
 * bytes allocated and promoted from V8's `--trace-gc-nvp` records (`allocated=`, `promoted=`) between a forced GC
 * before and after the measured calls. Each variant runs in a child process of its own, alternating per round, so
 * sources can be compared in one run on a noisy machine.
 *
 * Usage: npx tsx bench/consume-step.ts [label=srcDir ...]   (default: this=src)
 * Env: CONSUME_CALLS (200000), CONSUME_WARMUP (50000), CONSUME_ROUNDS (3), CONSUME_IN_FLIGHT (50).
 * To compare with an older commit: `git archive <commit> src | tar -x -C /tmp/base` (with /tmp/base/node_modules
 * linked to this repository's), then `npx tsx bench/consume-step.ts before=/tmp/base/src after=src`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { envNumber } from "./servers.js";

const BEGIN = "consume-step:begin";
const END = "consume-step:end ";
const DONE = "consume-step:done";

interface Measured {
  calls: number;
  cpuUs: number;
}

async function child(srcDir: string): Promise<void> {
  const calls = envNumber("CONSUME_CALLS", 200_000);
  const warmUp = envNumber("CONSUME_WARMUP", 50_000);
  const inFlight = envNumber("CONSUME_IN_FLIGHT", 50);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  const { createEmbeddedCounterStore } = await import(pathToFileURL(join(srcDir, "store/embedded/counters.ts")).href);
  const dir = mkdtempSync(join(tmpdir(), "keyward-consume-"));
  const store = await createEmbeddedCounterStore({ dir });
  try {
    // Plans are made once and reused (only `now` moves): what is measured is the step's own allocation.
    const plans = Array.from({ length: 64 }, (_, i) => {
      const keyId = `key_bench${i}`;
      return {
        tag: keyId,
        now: Date.now(),
        limits: [{ bucket: `key:${keyId}:requests`, limit: 1_000_000_000, duration: 60_000, cost: 1 }],
        credits: { keyId, cost: 1, refill: undefined },
      };
    });
    for (const plan of plans) await store.setCredits(plan.tag, plan.tag, 1_000_000_000, plan.now);
    let next = 0;
    const run = async (total: number) => {
      const worker = async () => {
        while (next < total) {
          const plan = plans[next++ % plans.length]!;
          plan.now = Date.now();
          const result = await store.consume(plan);
          if (result.outcome !== "VALID") throw new Error(`consume answered ${result.outcome}`);
        }
      };
      next = 0;
      await Promise.all(Array.from({ length: inFlight }, worker));
    };
    await run(warmUp);
    gc();
    writeSync(1, `${BEGIN}\n`);
    const cpu = process.cpuUsage();
    await run(calls);
    const used = process.cpuUsage(cpu);
    const measured: Measured = { calls, cpuUs: used.user + used.system };
    writeSync(1, `${END}${JSON.stringify(measured)}\n`);
    // Its record holds what the calls allocated since the last collection.
    gc();
    writeSync(1, `${DONE}\n`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Sample {
  cpuUs: number;
  allocated: number;
  promoted: number;
  gcs: number;
}

function measure(srcDir: string): Sample {
  const out = spawnSync(process.execPath, ["--expose-gc", "--trace-gc-nvp", "--import", "tsx", import.meta.filename, "--child", srcDir], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (out.status !== 0) throw new Error(`child for ${srcDir} exited with ${out.status}`);
  const begin = out.stdout.indexOf(BEGIN);
  const end = out.stdout.indexOf(END);
  const done = out.stdout.indexOf(DONE);
  if (begin < 0 || end < 0 || done < 0) throw new Error(`child for ${srcDir} printed no measurement`);
  const measured = JSON.parse(out.stdout.slice(end + END.length).split("\n")[0]!) as Measured;
  const window = out.stdout.slice(begin, done);
  let allocated = 0;
  let promoted = 0;
  let gcs = 0;
  for (const m of window.matchAll(/ allocated=(\d+) promoted=(\d+) /g)) {
    gcs++;
    allocated += Number(m[1]);
    promoted += Number(m[2]);
  }
  return { cpuUs: measured.cpuUs / measured.calls, allocated: allocated / measured.calls, promoted: promoted / measured.calls, gcs };
}

async function main(): Promise<void> {
  if (process.argv[2] === "--child") return child(resolve(process.argv[3]!));
  const variants = (process.argv.length > 2 ? process.argv.slice(2) : ["this=src"]).map((arg) => {
    const [label, dir] = arg.split("=");
    return { label: label!, dir: resolve(dir!) };
  });
  const rounds = envNumber("CONSUME_ROUNDS", 3);
  const samples = new Map<string, Sample[]>(variants.map((v) => [v.label, []]));
  for (let round = 0; round < rounds; round++) {
    for (const v of variants) {
      const s = measure(v.dir);
      samples.get(v.label)!.push(s);
      console.log(`round ${round + 1} ${v.label}: ${s.cpuUs.toFixed(2)} µs CPU, ${s.allocated.toFixed(0)} B allocated, ${s.promoted.toFixed(1)} B promoted per call (${s.gcs} GCs)`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [label, list] of samples) {
    console.log(
      `median ${label}: ${median(list.map((s) => s.cpuUs)).toFixed(2)} µs CPU, ${median(list.map((s) => s.allocated)).toFixed(0)} B allocated, ` +
        `${median(list.map((s) => s.promoted)).toFixed(1)} B promoted per call`,
    );
  }
}

await main();
