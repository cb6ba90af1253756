import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { acquireDirLock, DataDirLockedError, dirLockHolder, type DirLockOptions } from "../../src/store/embedded/lock-file.js";

const LOCK_MODULE = pathToFileURL(fileURLToPath(new URL("../../src/store/embedded/lock-file.ts", import.meta.url))).href;
const DENO = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));

/** A program that takes `dir`'s lock, says so with its pid, and keeps it. */
function holderProgram(dir: string, options: DirLockOptions): string {
  return `const { acquireDirLock } = await import(${JSON.stringify(LOCK_MODULE)});
await acquireDirLock(${JSON.stringify(dir)}, ${JSON.stringify(options)});
console.log("held " + process.pid);
setInterval(() => {}, 60_000);`;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];
// Holders started under a shell are not `children`: killing the shell would leave them running.
const holders: number[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const pid of holders.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
});
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "keyward-lock-"));
  dirs.push(dir);
  return dir;
}

/**
 * Starts a process (Node, or Deno with `deno`) that takes `dir`'s lock and resolves once it holds it, with its
 * pid. `underSleep` runs it under a shell that execs `sleep`, a parent that never reaps it: killed, it stays a
 * zombie.
 */
async function holdInChild(
  dir: string,
  options: DirLockOptions & { underSleep?: boolean; deno?: boolean } = {},
): Promise<{ pid: number; child: ChildProcess }> {
  const { underSleep, deno, ...lockOptions } = options;
  const program = holderProgram(dir, lockOptions);
  const command = deno ? [DENO, "eval", program] : [process.execPath, "--import", "tsx", "--input-type=module", "-e", program];
  const child = underSleep
    ? spawn("sh", ["-c", `"$@" & exec sleep 60`, "sh", ...command], { stdio: ["ignore", "pipe", "inherit"] })
    : spawn(command[0], command.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  let out = "";
  child.stdout!.setEncoding("utf8");
  const pid = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (chunk: string) => {
      out += chunk;
      const match = /held (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`lock holder exited (${code}) before holding: ${out}`)));
  });
  holders.push(pid);
  return { pid, child };
}

/** Resolves once `pid` is a zombie: every thread of it gone, its exit status not yet collected by its parent. */
async function untilZombie(pid: number): Promise<void> {
  for (;;) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const zombie = stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
    if (zombie && (await readdir(`/proc/${pid}/task`)).length === 1) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.skipIf(process.platform !== "linux")("data directory lock", () => {
  it("refuses a directory another process holds, naming its pid, and is free the moment that process is killed", async () => {
    const dir = await tempDir();
    // The holder reaches the directory through a symlink: the lock belongs to the directory, not to a path.
    await symlink(dir, `${dir}-link`);
    dirs.push(`${dir}-link`);
    const { pid, child } = await holdInChild(`${dir}-link`);

    const refused = acquireDirLock(dir);
    await expect(refused).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(refused).rejects.toThrow(`data directory ${dir} is in use by process ${pid}; stop it first`);
    expect(await dirLockHolder(dir)).toBe(pid);

    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    const lock = await acquireDirLock(dir);
    expect(await dirLockHolder(dir)).toBe(process.pid);
    await lock.release();
    expect(await dirLockHolder(dir)).toBeUndefined();
  });

  it("is free while its killed holder is still a zombie", async () => {
    const dir = await tempDir();
    const { pid } = await holdInChild(dir, { underSleep: true });
    await expect(acquireDirLock(dir)).rejects.toThrow(`in use by process ${pid}`);

    process.kill(pid, "SIGKILL");
    await untilZombie(pid);
    const lock = await acquireDirLock(dir);
    expect(await dirLockHolder(dir)).toBe(process.pid);
    await lock.release();
  });

  it("is free to take right after SIGKILL is sent, before the holder's exit is even seen", async () => {
    const dir = await tempDir();
    const { pid } = await holdInChild(dir, { underSleep: true });
    process.kill(pid, "SIGKILL");
    const lock = await acquireDirLock(dir);
    expect(await dirLockHolder(dir)).toBe(process.pid);
    await lock.release();
  });

  it("waits for a holder that stops answering and then dies, as one killed inside a disk write does, and takes the lock", async () => {
    const dir = await tempDir();
    // Holds the lock, then blocks its event loop for a second (no answers), then exits.
    const program = `const { acquireDirLock } = await import(${JSON.stringify(LOCK_MODULE)});
await acquireDirLock(${JSON.stringify(dir)});
console.log("held " + process.pid);
const until = Date.now() + 1000;
while (Date.now() < until);
process.exit(0);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    await new Promise((resolve) => child.stdout!.on("data", (chunk) => String(chunk).includes("held") && resolve(undefined)));
    const lock = await acquireDirLock(dir);
    expect(child.exitCode ?? (await new Promise((resolve) => child.on("exit", resolve)))).toBe(0);
    expect(await dirLockHolder(dir)).toBe(process.pid);
    await lock.release();
  });

  it("ignores a LOCK file of the old scheme naming a live process, and removes it", async () => {
    const dir = await tempDir();
    const bystander = spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], { stdio: "ignore" });
    children.push(bystander);
    for (const pid of [bystander.pid, 1, process.pid]) {
      await writeFile(join(dir, "LOCK"), `${JSON.stringify({ pid })}\n`);
      const lock = await acquireDirLock(dir);
      expect(existsSync(join(dir, "LOCK"))).toBe(false);
      await lock.release();
    }
  });

  it("refuses a second open in this process until the first is released", async () => {
    const dir = await tempDir();
    const first = await acquireDirLock(dir);
    await expect(acquireDirLock(dir)).rejects.toThrow(`data directory ${dir} is already open in this process`);
    await first.release();
    await first.release();
    const second = await acquireDirLock(dir);
    await second.release();
  });

  it("on other platforms, locks with a socket file in the directory and takes over one its dead holder left", async () => {
    const dir = await tempDir();
    const options = { platform: "darwin" as const };
    const { pid, child } = await holdInChild(dir, options);
    await expect(acquireDirLock(dir, options)).rejects.toThrow(`data directory ${dir} is in use by process ${pid}; stop it first`);
    expect(await dirLockHolder(dir, options)).toBe(pid);

    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    expect(existsSync(join(dir, "LOCK.sock"))).toBe(true);
    const lock = await acquireDirLock(dir, options);
    expect(await dirLockHolder(dir, options)).toBe(process.pid);
    await lock.release();
    expect(existsSync(join(dir, "LOCK.sock"))).toBe(false);
  });

  it("is one lock for Node and Deno: a Deno holder blocks a Node process", async () => {
    const dir = await tempDir();
    const { pid, child } = await holdInChild(dir, { deno: true });
    await expect(acquireDirLock(dir)).rejects.toThrow(`data directory ${dir} is in use by process ${pid}; stop it first`);
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    const lock = await acquireDirLock(dir);
    await lock.release();
  });

  it("does not keep its process alive: a process holding only the lock exits on its own", async () => {
    const dir = await tempDir();
    const program = `const { acquireDirLock } = await import(${JSON.stringify(LOCK_MODULE)}); await acquireDirLock(${JSON.stringify(dir)});`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], { stdio: "inherit" });
    children.push(child);
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
  });
});
