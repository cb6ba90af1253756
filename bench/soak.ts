/**
 * `npm run bench:soak`: does a Keyward server (embedded store) keep its memory through a long run of verifications?
 * One server, one key with credits and a rate limit far from running out, REST v2 keys.verifyKey sent by h2load in
 * chunks of a known count. Prints RSS (VmRSS of /proc/<pid>/status) and the data dir's size after SOAK_FIRST and
 * after SOAK_TOTAL verifications, and fails if RSS grew by more than SOAK_MAX_GROWTH_PERCENT between the two, or if
 * any request was answered with anything but 2xx. Not part of `npm run bench`: 10,000,000 verifications take a while.
 *
 * Env: SOAK_FIRST (1e6), SOAK_TOTAL (1e7), SOAK_CHUNK (100000), SOAK_CONNECTIONS (50), SOAK_MAX_GROWTH_PERCENT (10).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureH2load, sendCounted } from "./h2load.js";
import { envNumber, startServer, tempDir } from "./servers.js";
import { seedKey, servers } from "./targets.js";

function envCount(name: string, fallback: number): number {
  const value = envNumber(name, fallback);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be a whole number, got ${process.env[name]}`);
  return value;
}

/** Resident memory of `pid` in bytes, from /proc (Linux only, as the bench's CPU column). */
function rssBytes(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!line) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(line[1]) * 1_024;
}

/** Bytes of every file under `dir`. */
function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const first = envCount("SOAK_FIRST", 1_000_000);
  const total = envCount("SOAK_TOTAL", 10_000_000);
  const chunk = envCount("SOAK_CHUNK", 100_000);
  const connections = envCount("SOAK_CONNECTIONS", 50);
  const maxGrowthPercent = envNumber("SOAK_MAX_GROWTH_PERCENT", 10);
  if (total <= first) throw new Error(`SOAK_TOTAL (${total}) must be more than SOAK_FIRST (${first})`);
  console.log(`soak: ${ensureH2load()}; RSS after ${first} and after ${total} REST verifications, ${chunk} per h2load run`);

  const workDir = tempDir("keyward-soak-");
  const server = await startServer(servers.keyward);
  try {
    const { key } = await seedKey(server);
    const request = {
      url: `${server.baseUrl}/v2/keys.verifyKey`,
      protocol: "h1" as const,
      headers: { authorization: `Bearer ${server.rootKey}`, "content-type": "application/json" },
      body: new TextEncoder().encode(JSON.stringify({ key })),
      connections,
      streamsPerConnection: 1,
      workDir,
    };
    const started = Date.now();
    let sent = 0;
    /** Sends verifications until `target` have been answered, all of them 2xx. */
    const sendUntil = async (target: number) => {
      while (sent < target) {
        const count = Math.min(chunk, target - sent);
        const result = await sendCounted({ ...request, count });
        if (result.done !== count || result.non2xx > 0) {
          throw new Error(`h2load answered ${result.done} of ${count} requests, ${result.non2xx} of them not 2xx`);
        }
        sent += count;
        const seconds = (Date.now() - started) / 1_000;
        console.log(`soak: ${sent} verifications, ${(sent / seconds).toFixed(0)} req/s so far, RSS ${mb(rssBytes(server.pid))}`);
      }
      return { rss: rssBytes(server.pid), data: dirBytes(server.dataDir) };
    };
    const atFirst = await sendUntil(first);
    const atTotal = await sendUntil(total);
    const growth = ((atTotal.rss - atFirst.rss) / atFirst.rss) * 100;
    console.log(`\nafter ${first} verifications: RSS ${mb(atFirst.rss)}, data dir ${mb(atFirst.data)}`);
    console.log(`after ${total} verifications: RSS ${mb(atTotal.rss)}, data dir ${mb(atTotal.data)}`);
    console.log(`RSS growth: ${growth.toFixed(1)} % (at most ${maxGrowthPercent} %)`);
    if (growth > maxGrowthPercent) throw new Error(`RSS grew ${growth.toFixed(1)} % between ${first} and ${total} verifications`);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`\nsoak FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
