#!/usr/bin/env node
/**
 * A private, throw-away redis-server for tests and benchmarks: loopback only, no persistence, its own temp dir,
 * a free port. Plain ESM JavaScript so `node`, `tsx`, vitest and Deno can all load it (types: redis-server.d.mts).
 *
 * CLI: `node scripts/redis-server.mjs` prints the URL and runs until SIGINT/SIGTERM;
 *      `node scripts/redis-server.mjs <command...>` runs the command with REDIS_URL set, then stops the server.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const HOST = "127.0.0.1";

/**
 * Starts redis-server and resolves once it answers PING (within `startTimeoutMs`, default 10 s).
 * Rejects with the server's output if it exits or never answers. `stop()` is idempotent, kills the
 * process, waits for it to exit and removes the temp dir. `extraArgs` are appended to the command line;
 * `port` pins the port (e.g. to restart a server where clients expect it), otherwise a free one is chosen.
 */
export async function startRedisServer(options = {}) {
  const { bin = process.env.REDIS_SERVER_BIN || "redis-server", startTimeoutMs = 10_000, extraArgs = [], configFile } = options;
  if (options.port !== undefined) return startOnPort({ bin, port: options.port, startTimeoutMs, extraArgs, configFile });
  // A free port can be taken between probing and binding; a bind failure is retried with a new port.
  let lastError;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await findFreePort();
    try {
      return await startOnPort({ bin, port, startTimeoutMs, extraArgs, configFile });
    } catch (err) {
      lastError = err;
      if (!/Address already in use/i.test(String(err?.message))) throw err;
    }
  }
  throw lastError;
}

async function startOnPort({ bin, port, startTimeoutMs, extraArgs, configFile }) {
  const dir = mkdtempSync(join(tmpdir(), "keyward-redis-"));
  // redis-server takes a config file only as its first argument (Sentinel needs one it can rewrite).
  const args = [
    ...(configFile ? [configFile(dir)] : []),
    "--port", String(port),
    "--bind", HOST,
    "--save", "",
    "--appendonly", "no",
    "--dir", dir,
    "--daemonize", "no",
    "--logfile", "",
    "--loglevel", "warning",
    ...extraArgs,
  ];
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk).slice(-4000);
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);

  let exited = false;
  const exitedPromise = new Promise((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
    child.once("error", (err) => {
      exited = true;
      resolve({ error: err });
    });
  });
  // If the test runner dies without teardown, do not leave a redis-server behind.
  const killOnExit = () => {
    if (!exited) child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);

  let stopped;
  const stop = () => {
    stopped ??= (async () => {
      process.removeListener("exit", killOnExit);
      if (!exited) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exitedPromise;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  const url = `redis://${HOST}:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  const early = exitedPromise.then((result) => ({ exit: result }));
  for (;;) {
    const result = await Promise.race([ping(port, 500).then((ok) => ({ ok })), early]);
    if (result.exit) {
      await stop();
      const { error, code, signal } = result.exit;
      if (error?.code === "ENOENT") {
        throw new Error(`${bin} not found on PATH: run \`bash scripts/test.sh\` or \`apt-get install redis-server\``);
      }
      throw new Error(`redis-server exited (${error?.message ?? `code ${code}, signal ${signal}`}): ${output.trim()}`);
    }
    if (result.ok) return { url, port, dir, pid: child.pid, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server on ${url} did not answer PING within ${startTimeoutMs} ms: ${output.trim()}`);
    }
    // Polling interval between readiness probes, not a wait for time to pass.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Asks the OS for a free loopback port. */
function findFreePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One raw RESP PING; resolves true on +PONG, false on refusal, error or timeout. */
function ping(port, timeoutMs) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port });
    let reply = "";
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.setEncoding("utf8").on("data", (chunk) => {
      reply += chunk;
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

async function main(argv) {
  const server = await startRedisServer();
  const shutdown = async (code) => {
    await server.stop();
    process.exit(code);
  };
  if (argv.length === 0) {
    console.log(server.url);
    process.once("SIGINT", () => shutdown(0));
    process.once("SIGTERM", () => shutdown(0));
    return;
  }
  const child = spawn(argv[0], argv.slice(1), {
    stdio: "inherit",
    env: { ...process.env, REDIS_URL: server.url },
  });
  process.once("SIGINT", () => child.kill("SIGINT"));
  process.once("SIGTERM", () => child.kill("SIGTERM"));
  child.once("error", (err) => {
    console.error(err.message);
    void shutdown(127);
  });
  child.once("exit", (code, signal) => void shutdown(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
