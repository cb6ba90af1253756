import { realpath, rm, stat, unlink } from "node:fs/promises";
import { createConnection, createServer, type Server } from "node:net";
import { join } from "node:path";

/** Another live process (or this one) already has the data directory open. */
export class DataDirLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DataDirLockedError";
  }
}

export interface DirLock {
  release(): Promise<void>;
}

export interface DirLockOptions {
  /** Whose locking scheme to use; only tests pass another platform's, to run the socket-file scheme on Linux. */
  platform?: NodeJS.Platform;
}

// Addresses of the locks this process holds: a second open here is told apart from another process' lock.
const held = new Set<string>();
// How long an acquirer waits for the holder to tell its pid or to go. A live holder answers within milliseconds.
// A killed one keeps its socket, silent, until its last thread has exited, and a thread inside a disk write
// (fdatasync) finishes the write first, which under heavy I/O can take a second or more.
const HOLDER_REPLY_MS = 5_000;
// Tries at a lock whose holder is going away; more only means a process that accepts and hangs up is not Keyward.
const ATTEMPTS = 5;
const SUN_PATH_BYTES = 108;
// Earlier versions locked with a pid file of this name. Nothing reads it any more; a leftover one is removed
// because the pid it names would mislead whoever looks.
const LEGACY_LOCK_FILE = "LOCK";

/**
 * Takes the exclusive lock of a data directory: a listening local socket named after the directory's identity
 * (device and inode, so two paths to one directory collide). The kernel drops the socket once the last thread of
 * its process is gone, SIGKILL included and before any parent collects the exit (a zombie holds nothing), so a
 * restart right after a crash gets the lock and nothing on disk can go stale. The holder answers a connection with
 * its pid, which the error then names; a holder that goes without answering (killed, finishing its last disk
 * write) is waited for, up to 5 seconds.
 *
 * - Linux: the abstract namespace (`@keyward-dir-<dev>-<ino>` in `ss -xlp`), no file at all. Abstract sockets
 *   are per network namespace: two containers with separate network namespaces sharing one volume do not see
 *   each other's lock.
 * - Windows: the named pipe `\\?\pipe\keyward-dir-<dev>-<ino>`, which also dies with its process.
 * - Elsewhere (macOS, BSD): the socket file `LOCK.sock` in the directory. A socket file outlives its process, so
 *   one nobody listens on (ECONNREFUSED) is removed and the lock taken; two processes doing that at the
 *   same instant could both win. Its path must fit a socket address (about 100 bytes).
 *
 * Throws DataDirLockedError when another process or this one holds the lock. The lock never keeps the process
 * alive; `release()` frees it.
 */
export async function acquireDirLock(dir: string, options: DirLockOptions = {}): Promise<DirLock> {
  const platform = options.platform ?? process.platform;
  const address = await lockAddress(dir, platform);
  if (held.has(address)) throw new DataDirLockedError(`data directory ${dir} is already open in this process`);
  held.add(address);
  let server: Server;
  try {
    server = await listenOrReport(dir, address, platform);
  } catch (error) {
    held.delete(address);
    throw error;
  }
  let released = false;
  const lock: DirLock = {
    async release() {
      if (released) return;
      released = true;
      // Closing the listening handle frees the address at once (and unlinks a socket file); connections still
      // open are only pid answers on their way out.
      server.close();
      held.delete(address);
    },
  };
  try {
    await rm(join(dir, LEGACY_LOCK_FILE), { force: true });
  } catch (error) {
    await lock.release();
    throw error;
  }
  return lock;
}

/**
 * The pid of the process holding `dir`'s lock; undefined when no process holds it, or its holder did not answer
 * within 5 seconds. For tools and tests that want to know who has a directory open.
 */
export async function dirLockHolder(dir: string, options: DirLockOptions = {}): Promise<number | undefined> {
  return (await askHolder(await lockAddress(dir, options.platform ?? process.platform))).pid;
}

function usesSocketFile(platform: NodeJS.Platform): boolean {
  return platform !== "linux" && platform !== "win32";
}

async function lockAddress(dir: string, platform: NodeJS.Platform): Promise<string> {
  if (usesSocketFile(platform)) return join(await realpath(dir), "LOCK.sock");
  const { dev, ino } = await stat(dir, { bigint: true });
  if (platform === "win32") return `\\\\?\\pipe\\keyward-dir-${dev}-${ino}`;
  // An abstract name is every byte given. Node 20 binds the whole sun_path (108 bytes, NUL-padded), Deno only
  // the name: padded here to the whole, both name the same socket and see each other's locks.
  return `\0keyward-dir-${dev}-${ino}`.padEnd(SUN_PATH_BYTES, "\0");
}

async function listenOrReport(dir: string, address: string, platform: NodeJS.Platform): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await listen(address);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
    const holder = await askHolder(address);
    // A holder killed a moment ago keeps its socket until its last thread is gone; asking it then ends in a
    // closed connection. A socket file outlives its process: nobody listens on it.
    if (holder.gone && attempt < ATTEMPTS) {
      if (holder.gone === "refused" && usesSocketFile(platform)) await unlink(address).catch(() => undefined);
      continue;
    }
    const who = holder.pid === undefined ? "another process" : `process ${holder.pid}`;
    throw new DataDirLockedError(`data directory ${dir} is in use by ${who}; stop it first`);
  }
}

function listen(address: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on("error", () => undefined); // an asker that hangs up early changes nothing
      socket.unref();
      socket.end(`${process.pid}\n`);
    });
    server.once("error", reject);
    server.listen({ path: address }, () => {
      server.off("error", reject);
      // A failed accept (out of file descriptors) only leaves one asker without an answer.
      server.on("error", () => undefined);
      server.unref();
      resolve(server);
    });
  });
}

interface Holder {
  /** What the holder answered. */
  pid?: number;
  /** Nobody listens ("refused"), or the holder closed the connection without answering: it is going away. */
  gone?: "refused" | "closed";
}

/** Asks a lock's holder for its pid; neither pid nor gone when it did not answer in time. */
function askHolder(address: string): Promise<Holder> {
  return new Promise((resolve) => {
    const socket = createConnection({ path: address });
    let reply = "";
    const done = (holder: Holder) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(holder);
    };
    const timer = setTimeout(() => done({}), HOLDER_REPLY_MS);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      reply += chunk;
      if (reply.length > 32) done({});
    });
    socket.on("end", () => {
      const pid = Number(reply.trim());
      done(reply && Number.isSafeInteger(pid) && pid > 0 ? { pid } : { gone: "closed" });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const refused = error.code === "ECONNREFUSED" || error.code === "ENOENT";
      done({ gone: refused ? "refused" : "closed" });
    });
  });
}
