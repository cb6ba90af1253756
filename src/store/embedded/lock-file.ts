import { link, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

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

const LOCK_FILE = "LOCK";
// Lock files this process holds. A LOCK naming our own pid that is not in here was left by an earlier process
// that had the same pid, which is the norm in containers (always pid 1), so it is stale.
const held = new Set<string>();

/**
 * Takes the exclusive lock of a data directory: a LOCK file holding the owner's pid, created atomically (written
 * aside, then hard-linked into place, so it is never seen half-written). A lock whose pid is dead is taken over.
 * Throws DataDirLockedError when a live process holds it. Two processes racing to take over the same stale lock
 * could both win; starting two servers on one directory at the same instant after a crash is not supported.
 */
export async function acquireDirLock(dir: string): Promise<DirLock> {
  const path = join(dir, LOCK_FILE);
  if (held.has(path)) throw new DataDirLockedError(`data directory ${dir} is already open in this process`);
  const aside = join(dir, `${LOCK_FILE}.${process.pid}.${randomBytes(4).toString("hex")}`);
  await writeFile(aside, `${JSON.stringify({ pid: process.pid })}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(aside, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 3) throw error;
      }
      const owner = await readOwner(path);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new DataDirLockedError(
          `data directory ${dir} is in use by process ${owner}; stop it, or delete ${path} if that process is not Keyward`,
        );
      }
      await rm(path, { force: true });
    }
  } finally {
    await rm(aside, { force: true });
  }
  held.add(path);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      held.delete(path);
      await rm(path, { force: true });
    },
  };
}

async function readOwner(path: string): Promise<number | undefined> {
  try {
    const pid = JSON.parse(await readFile(path, "utf8")).pid;
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // vanished, empty after a crash, or garbage: nobody can be holding it
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
