/**
 * `npm run bench:scale`: REST v2 keys.verifyKey on one instance against three, on the same stores, and Redis single
 * node against a Redis Cluster (3 masters + 3 replicas), in one run with the bare node:http handler as reference.
 * Documents live on the MongoDB wire emulator (the only MongoDB this machine can run), counters on Redis.
 *
 * One instance gets all BENCH_CONNECTIONS (48); three instances get a third each, from three h2load processes
 * running at once (a load balancer's round robin); their req/s are summed. All instances share the machine's
 * cores with each other and with h2load, so the three-instance row shows the cost of the extra processes and
 * network hops on one host, not what three hosts would add.
 */
import { availableParallelism } from "node:os";
import { rmSync } from "node:fs";
import { startRedisCluster } from "../scripts/redis-cluster.mjs";
import { startRedisServer } from "../scripts/redis-server.mjs";
import { startMongoEmulator } from "../test/scale/fleet.js";
import { ensureH2load, runH2load, type LoadResult } from "./h2load.js";
import { envNumber, startServer, tempDir, type RunningServer } from "./servers.js";
import { seedKey, servers } from "./targets.js";

const connections = envNumber("BENCH_CONNECTIONS", 48);
const seconds = envNumber("BENCH_SECONDS", 10);
const warmUpSeconds = envNumber("BENCH_WARMUP_SECONDS", 2);

interface Row {
  name: string;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  failed: number;
}

const encoder = new TextEncoder();

/** h2load against every server at once, `connections` split evenly; req/s summed, the slowest p50/p99 kept. */
async function load(name: string, targets: RunningServer[], seed: { key: string }, rootKey: string, workDir: string): Promise<Row> {
  const results: LoadResult[] = await Promise.all(
    targets.map((server) =>
      runH2load({
        url: `${server.baseUrl}/v2/keys.verifyKey`,
        protocol: "h1",
        headers: { authorization: `Bearer ${rootKey}`, "content-type": "application/json" },
        body: encoder.encode(JSON.stringify({ key: seed.key })),
        connections: connections / targets.length,
        streamsPerConnection: 1,
        seconds,
        warmUpSeconds,
        workDir,
      }),
    ),
  );
  return {
    name,
    reqPerSec: results.reduce((sum, r) => sum + r.reqPerSec, 0),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    failed: results.reduce((sum, r) => sum + r.failed, 0),
  };
}

/** Three Keyward processes on one MongoDB database and the given Redis; the first starts alone (it bootstraps). */
async function startInstances(env: Record<string, string>): Promise<RunningServer[]> {
  const spec = { entry: servers.keyward.entry, env };
  const first = await startServer(spec);
  const rest = await Promise.all([startServer(spec), startServer(spec)]);
  return [first, ...rest];
}

async function main(): Promise<void> {
  if (connections % 3 !== 0) throw new Error("BENCH_CONNECTIONS must be a multiple of 3");
  ensureH2load();
  const workDir = tempDir("keyward-scale-");
  const rows: Row[] = [];
  const bare = await startServer(servers.bare);
  try {
    rows.push(await load("bare node:http", [bare], { key: "x" }, "x", workDir));
  } finally {
    await bare.stop();
  }

  const mongo = await startMongoEmulator();
  const single = await startRedisServer();
  const cluster = await startRedisCluster();
  try {
    for (const [label, redisUrl] of [["Redis single node", single.url], ["Redis Cluster 3+3", cluster.url]] as const) {
      console.log(`bench: ${label}`);
      const db = `scale_${label.split(" ")[1].toLowerCase()}`;
      const instances = await startInstances({ MONGODB_URL: mongo.url(db), REDIS_URL: redisUrl });
      try {
        const rootKey = instances[0].rootKey;
        const seed = await seedKey({ baseUrl: instances[0].baseUrl, rootKey });
        rows.push(await load(`REST verify, 1 instance, ${label}`, instances.slice(0, 1), { key: seed.key }, rootKey, workDir));
        rows.push(await load(`REST verify, 3 instances, ${label}`, instances, { key: seed.key }, rootKey, workDir));
      } finally {
        await Promise.all(instances.map((server) => server.stop()));
      }
    }
  } finally {
    await cluster.stop();
    await single.stop();
    await mongo.stop();
    rmSync(workDir, { recursive: true, force: true });
  }

  const reference = rows[0].reqPerSec;
  console.log(`\n${availableParallelism()} cores, ${connections} connections in all, ${seconds}s per row after ${warmUpSeconds}s warm-up; documents on the MongoDB emulator\n`);
  console.log("| target | req/s | p50 ms | p99 ms | non-2xx | failed | vs bare |\n|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.reqPerSec.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.non2xx} | ${r.failed} | ${(r.reqPerSec / reference).toFixed(2)} |`);
  }
  const broken = rows.filter((r) => r.non2xx > 0 || r.failed > 0 || r.reqPerSec === 0);
  if (broken.length > 0) throw new Error(`rows with errors (numbers are not valid): ${broken.map((r) => r.name).join(", ")}`);
}

main().catch((error: unknown) => {
  console.error(`\nbench FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
