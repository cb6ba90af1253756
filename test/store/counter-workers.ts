import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { ConsumePlan } from "../../src/store/ports/counters.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/counters-worker.ts", import.meta.url));

/**
 * Starts one counters worker process (fixtures/counters-worker.ts) per share against the Redis at `url`, releases
 * them together once all are connected, and sums their outcomes.
 */
export async function runWorkers(url: string, prefix: string, plan: ConsumePlan, shares: number[]): Promise<Record<string, number>> {
  const children = shares.map((count) =>
    spawn(process.execPath, ["--import", "tsx", worker, JSON.stringify({ url, prefix, count, plan })], {
      cwd: repo,
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  try {
    const runs = children.map((child) => {
      let stderr = "";
      child.stderr!.on("data", (chunk) => (stderr += chunk));
      const lines = createInterface({ input: child.stdout! });
      let onReady: () => void;
      const ready = new Promise<void>((resolve) => (onReady = resolve));
      const done = new Promise<Record<string, number>>((resolve, reject) => {
        lines.on("line", (line) => {
          if (line === "ready") onReady();
          else if (line.startsWith("done ")) resolve(JSON.parse(line.slice(5)));
        });
        child.on("close", (code) => reject(new Error(`worker exited (${code}) without a result: ${stderr}`)));
      });
      return { ready, done };
    });
    await Promise.all(runs.map((run) => run.ready));
    for (const child of children) child.stdin!.write("go\n");
    const totals: Record<string, number> = {};
    for (const outcomes of await Promise.all(runs.map((run) => run.done))) {
      for (const [outcome, n] of Object.entries(outcomes)) totals[outcome] = (totals[outcome] ?? 0) + n;
    }
    return totals;
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  }
}
