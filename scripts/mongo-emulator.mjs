#!/usr/bin/env node
/**
 * A private MongoDB wire emulator for tests (no mongod can be installed on the build machines): the shared
 * `mongo-emulator/run.sh` beside the repository (`../shared/mongo-emulator/run.sh` in CI), on a free loopback port.
 * Plain ESM JavaScript so `node`, `tsx`, vitest and Deno can load it (types: mongo-emulator.d.mts).
 * NOT a real MongoDB (see run.sh's header): no rollback of aborted transactions, no TTL, no write concern.
 *
 * CLI: `node scripts/mongo-emulator.mjs` prints the URL and runs until SIGINT/SIGTERM.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HOST = "127.0.0.1";
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The emulator's run.sh: `$KEYWARD_MONGO_EMULATOR` when set, else `shared/mongo-emulator/run.sh` in the repository's
 * parent directory or one further up (a git worktree under `wt/`). Undefined when there is none.
 */
export function findMongoEmulator() {
  const given = process.env.KEYWARD_MONGO_EMULATOR;
  if (given) return existsSync(given) ? given : undefined;
  for (const base of [resolve(repoRoot, ".."), resolve(repoRoot, "../..")]) {
    const candidate = join(base, "shared", "mongo-emulator", "run.sh");
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The connection string of database `db` on an emulator at `port` (polling monitor: it has no streaming hello). */
export function emulatorUrl(port, db = "keyward_test") {
  return `mongodb://${HOST}:${port}/${db}?serverMonitoringMode=poll`;
}

/**
 * Starts the emulator and resolves once it listens (within `startTimeoutMs`, default 180 s: the first start builds it
 * from the npm registry). `port` pins the port (to restart it where clients expect it), else a free one is chosen.
 * `replicaSet` makes it answer `hello` as a one-member replica set, so the driver runs transactions. `stop()` is
 * idempotent, kills the process and waits for it to exit.
 */
export async function startMongoEmulator(options = {}) {
  const runSh = options.runSh ?? findMongoEmulator();
  if (!runSh) throw new Error("mongo emulator not found: set KEYWARD_MONGO_EMULATOR to its run.sh, or put shared/ beside the repository");
  if (options.port !== undefined) return startOn(runSh, options.port, options);
  // A port free when asked can be taken by another process before the emulator binds it (tests run in parallel):
  // then it exits with EADDRINUSE, and another free port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(runSh, await findFreePort(), options);
    } catch (error) {
      if (attempt === PORT_ATTEMPTS || !String(error?.message).includes("EADDRINUSE")) throw error;
    }
  }
}

const PORT_ATTEMPTS = 5;

/** One start of the emulator on `port`. */
async function startOn(runSh, port, options) {
  const env = { ...process.env };
  if (options.replicaSet) Object.assign(env, { CONGO_SETNAME: options.replicaSet, CONGO_PORT: String(port) });
  else delete env.CONGO_SETNAME;
  const child = spawn("bash", [runSh, String(port)], { stdio: ["ignore", "pipe", "pipe"], env, detached: false });
  let output = "";
  let exited = false;
  const exitedPromise = new Promise((resolveExit) => {
    child.once("exit", (code, signal) => {
      exited = true;
      resolveExit({ code, signal });
    });
  });
  const killOnExit = () => {
    if (!exited) child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  let stopped;
  const stop = () => {
    stopped ??= (async () => {
      process.removeListener("exit", killOnExit);
      if (!exited) {
        child.kill("SIGKILL");
        await exitedPromise;
      }
    })();
    return stopped;
  };
  const listening = new Promise((resolveListening) => {
    const keep = (chunk) => {
      output = (output + chunk).slice(-4000);
      if (output.includes(`listening on ${HOST}:${port}`)) resolveListening(true);
    };
    child.stdout.setEncoding("utf8").on("data", keep);
    child.stderr.setEncoding("utf8").on("data", keep);
  });
  const timeoutMs = options.startTimeoutMs ?? 180_000;
  let timer;
  const outcome = await Promise.race([
    listening.then(() => "up"),
    exitedPromise.then(() => "exited"),
    new Promise((resolveTimeout) => (timer = setTimeout(() => resolveTimeout("timeout"), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (outcome !== "up") {
    await stop();
    throw new Error(`mongo emulator on port ${port} ${outcome === "exited" ? "exited" : `did not listen within ${timeoutMs} ms`}: ${output.trim()}`);
  }
  return { url: emulatorUrl(port), port, pid: child.pid, stop };
}

/** Asks the OS for a free loopback port. */
function findFreePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const emulator = await startMongoEmulator({ replicaSet: process.env.CONGO_SETNAME });
  console.log(emulator.url);
  const shutdown = () => emulator.stop().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
