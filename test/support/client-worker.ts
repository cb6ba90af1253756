import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Spawns a client process running `worker` (a fixture that prints `ready`, waits for `go` on stdin, fires its calls,
 * then prints a JSON tally) and resolves once it is ready, so several workers can be released at the same moment.
 * The worker runs on the runtime running the suite: Node needs tsx for TypeScript, Deno runs it as it is.
 */
export async function startClientWorker<T = Record<string, number>>(worker: string, args: string[]) {
  const runtimeArgs = "Deno" in globalThis ? ["run", "-A", worker] : ["--import", "tsx", worker];
  const child = spawn(process.execPath, [...runtimeArgs, ...args], { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk) => void (err += chunk));
  // "close" fires once stdout is drained too: the tally may still be in the pipe when the process exits.
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.startsWith("ready\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited (${code}) before ready: ${err}`)));
  });
  return {
    go: () => child.stdin.write("go\n"),
    async result(): Promise<T> {
      const code = await exited;
      if (code !== 0) throw new Error(`worker exited with ${code}: ${err}`);
      return JSON.parse(out.slice("ready\n".length).trim()) as T;
    },
  };
}
