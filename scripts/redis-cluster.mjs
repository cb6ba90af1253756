#!/usr/bin/env node
/**
 * A private, throw-away Redis Cluster for tests: three masters and three replicas from Debian's redis-server on
 * free loopback ports (each a scripts/redis-server.mjs instance with its own temp dir), joined by
 * `redis-cli --cluster create ... --cluster-replicas 1`. A small node timeout keeps failovers within seconds.
 * Plain ESM JavaScript like redis-server.mjs (types: redis-cluster.d.mts).
 *
 * CLI: `node scripts/redis-cluster.mjs` prints the REDIS_URL and runs until SIGINT/SIGTERM.
 */
import { execFile } from "node:child_process";
import { pathToFileURL } from "node:url";
import { startRedisServer } from "./redis-server.mjs";

const HOST = "127.0.0.1";
const cliBin = () => process.env.REDIS_CLI_BIN || "redis-cli";

/** Runs `redis-cli -p port args...` and resolves with its stdout; rejects on a non-zero exit. */
export function redisCli(port, args, { timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(cliBin(), ["-h", HOST, "-p", String(port), ...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`redis-cli -p ${port} ${args.join(" ")}: ${error.message} ${stderr}`.trim()));
      else resolve(stdout);
    });
  });
}

/** `CLUSTER NODES` as seen by the node on `port`: id, port, role, master id, link state and slot ranges. */
export async function clusterNodes(port) {
  const text = await redisCli(port, ["cluster", "nodes"]);
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const [id, address, flags, masterId, , , , link, ...slots] = line.split(" ");
      const role = flags.includes("master") ? "master" : "replica";
      return {
        id,
        port: Number(address.split("@")[0].split(":")[1]),
        role,
        masterId: masterId === "-" ? undefined : masterId,
        failed: flags.includes("fail") && !flags.includes("fail?") ? true : flags.includes("fail?") ? "pfail" : false,
        myself: flags.includes("myself"),
        connected: link === "connected",
        slots,
      };
    });
}

/**
 * Starts the six nodes, creates the cluster and resolves once every node reports `cluster_state:ok` and knows all
 * six, and every replica is in sync with its master. `stop()` kills every node (idempotent).
 * `nodeTimeoutMs` is cluster-node-timeout (default 1 000 ms).
 */
export async function startRedisCluster(options = {}) {
  const { masters = 3, replicasPerMaster = 1, nodeTimeoutMs = 1_000, startTimeoutMs = 30_000 } = options;
  const count = masters * (1 + replicasPerMaster);
  const extraArgs = [
    "--cluster-enabled", "yes",
    "--cluster-config-file", "nodes.conf",
    "--cluster-node-timeout", String(nodeTimeoutMs),
    // A replica may always take over, however long its link was down: tests kill masters on purpose.
    "--cluster-replica-validity-factor", "0",
    "--cluster-require-full-coverage", "yes",
  ];
  const servers = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    for (let i = 0; i < count; i++) servers.push(await startRedisServer({ extraArgs }));
    const addresses = servers.map((server) => `${HOST}:${server.port}`);
    await redisCli(servers[0].port, ["--cluster", "create", ...addresses, "--cluster-replicas", String(replicasPerMaster), "--cluster-yes"], {
      timeoutMs: startTimeoutMs,
    });
    await waitUntil(() => clusterHealthy(servers.map((server) => server.port), count), startTimeoutMs, "cluster to become ok");
  } catch (error) {
    await stop();
    throw error;
  }
  const ports = servers.map((server) => server.port);
  return {
    url: `redis+cluster://${ports.map((port) => `${HOST}:${port}`).join(",")}`,
    ports,
    servers,
    /** The current masters' ports, as the first live node sees them. */
    async masterPorts() {
      for (const server of servers) {
        try {
          const nodes = await clusterNodes(server.port);
          return nodes.filter((node) => node.role === "master" && !node.failed && node.slots.length > 0).map((node) => node.port);
        } catch {
          // that node is down: ask the next
        }
      }
      throw new Error("no cluster node answers");
    },
    /** Resolves once the live nodes (all but `except`) report cluster_state:ok with every slot served. */
    waitHealthy({ except = [], timeoutMs = 20_000 } = {}) {
      const live = ports.filter((port) => !except.includes(port));
      return waitUntil(() => clusterOk(live), timeoutMs, "cluster to recover");
    },
    stop,
  };
}

async function clusterOk(ports) {
  for (const port of ports) {
    const info = await redisCli(port, ["cluster", "info"]);
    if (!info.includes("cluster_state:ok") || !info.includes("cluster_slots_ok:16384")) return false;
  }
  return true;
}

async function clusterHealthy(ports, count) {
  if (!(await clusterOk(ports))) return false;
  for (const port of ports) {
    const info = await redisCli(port, ["cluster", "info"]);
    if (!info.includes(`cluster_known_nodes:${count}`)) return false;
    const replication = await redisCli(port, ["info", "replication"]);
    if (replication.includes("role:slave") && !replication.includes("master_link_status:up")) return false;
  }
  return true;
}

/** Polls `check` (every 50 ms) until it resolves true, or rejects after `timeoutMs`; a throwing check counts as false. */
export async function waitUntil(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    // Polling interval between probes, not a wait for time to pass.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main() {
  const cluster = await startRedisCluster();
  console.log(cluster.url);
  const shutdown = async () => {
    await cluster.stop();
    process.exit(0);
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}

/**
 * Moves one hash slot from the master on `fromPort` to the master on `toPort` the way `redis-cli --cluster reshard`
 * does: IMPORTING/MIGRATING, MIGRATE of its keys in batches, then SETSLOT NODE on every master. Clients see ASK (and
 * TRYAGAIN for multi-key commands) while it runs, MOVED after. `between` (optional) runs after each phase, so a test
 * can let load through while the slot is half moved.
 */
export async function migrateSlot({ slot, fromPort, toPort, masterPorts, between = async () => {} }) {
  const nodes = await clusterNodes(fromPort);
  const from = nodes.find((node) => node.port === fromPort);
  const to = nodes.find((node) => node.port === toPort);
  if (!from || !to) throw new Error(`unknown node ${fromPort} or ${toPort}`);
  await redisCli(toPort, ["cluster", "setslot", String(slot), "importing", from.id]);
  await redisCli(fromPort, ["cluster", "setslot", String(slot), "migrating", to.id]);
  await between("migrating");
  let moved = 0;
  for (;;) {
    const keys = (await redisCli(fromPort, ["cluster", "getkeysinslot", String(slot), "100"])).split("\n").filter(Boolean);
    if (keys.length === 0) break;
    await redisCli(fromPort, ["migrate", HOST, String(toPort), "", "0", "5000", "keys", ...keys]);
    moved += keys.length;
  }
  await between("keys-moved");
  const order = [toPort, fromPort, ...masterPorts.filter((port) => port !== toPort && port !== fromPort)];
  for (const port of order) await redisCli(port, ["cluster", "setslot", String(slot), "node", to.id]);
  return { moved };
}

/** The port of the master serving `slot`, as the node on `askPort` sees it. */
export async function ownerOfSlot(askPort, slot) {
  for (const node of await clusterNodes(askPort)) {
    if (node.role !== "master" || node.failed === true) continue;
    for (const range of node.slots) {
      if (range.startsWith("[")) continue; // a migration marker, not ownership
      const [first, last = first] = range.split("-").map(Number);
      if (slot >= first && slot <= last) return node.port;
    }
  }
  throw new Error(`no master serves slot ${slot}`);
}
