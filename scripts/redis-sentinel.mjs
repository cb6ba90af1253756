#!/usr/bin/env node
/**
 * A private, throw-away Sentinel setup for tests: one master, one replica and one sentinel (quorum 1) from Debian's
 * redis-server (`redis-server <conf> --sentinel`), each a scripts/redis-server.mjs instance on a free loopback port.
 * Short timeouts keep a failover within a few seconds. Types: redis-sentinel.d.mts.
 *
 * CLI: `node scripts/redis-sentinel.mjs` prints the REDIS_URL and runs until SIGINT/SIGTERM.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { redisCli, waitUntil } from "./redis-cluster.mjs";
import { startRedisServer } from "./redis-server.mjs";

const HOST = "127.0.0.1";

/**
 * Starts master, replica and sentinel and resolves once the replica is in sync and the sentinel knows both.
 * `masterName` defaults to `mymaster`; `downAfterMs` (default 1 000) is how long the master must be silent before
 * the sentinel fails over. `stop()` kills all three (idempotent).
 */
export async function startRedisSentinel(options = {}) {
  const { masterName = "mymaster", downAfterMs = 1_000, failoverTimeoutMs = 5_000, startTimeoutMs = 20_000 } = options;
  const servers = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    const master = await startRedisServer();
    servers.push(master);
    const replica = await startRedisServer({ extraArgs: ["--replicaof", HOST, String(master.port)] });
    servers.push(replica);
    await waitUntil(async () => (await redisCli(replica.port, ["info", "replication"])).includes("master_link_status:up"), startTimeoutMs, "replica sync");
    const sentinel = await startRedisServer({
      extraArgs: ["--sentinel"],
      configFile: (dir) => {
        const file = join(dir, "sentinel.conf");
        writeFileSync(
          file,
          [
            `sentinel monitor ${masterName} ${HOST} ${master.port} 1`,
            `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
            `sentinel failover-timeout ${masterName} ${failoverTimeoutMs}`,
            `sentinel parallel-syncs ${masterName} 1`,
            "",
          ].join("\n"),
        );
        return file;
      },
    });
    servers.push(sentinel);
    await waitUntil(
      async () => (await redisCli(sentinel.port, ["sentinel", "replicas", masterName])).includes(String(replica.port)),
      startTimeoutMs,
      "sentinel to discover the replica",
    );
    return {
      url: `redis+sentinel://${HOST}:${sentinel.port}/${masterName}`,
      masterName,
      master,
      replica,
      sentinel,
      /** The master's port as the sentinel currently names it. */
      async masterPort() {
        const [, port] = (await redisCli(sentinel.port, ["sentinel", "get-master-addr-by-name", masterName])).trim().split("\n");
        return Number(port);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function main() {
  const setup = await startRedisSentinel();
  console.log(setup.url);
  const shutdown = async () => {
    await setup.stop();
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
