import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One secret found in a log: where, and the secret masked (the report must not repeat it). */
export interface Leak {
  file: string;
  line: number;
  secret: string;
}

/** The bootstrap's one-time display of a new root key: the line after this notice is meant for the operator. */
const ROOT_KEY_NOTICE = "it is shown only this once:";

/** `kw_r…(31 chars)`: enough to find the secret in the run's secrets files, not enough to use it. */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 4)}…(${secret.length} chars)`;
}

/**
 * Every occurrence of a secret in the log text of `files`, except the bootstrap's deliberate one-time display of a
 * root key on stdout (the line after "...it is shown only this once:"). Pure: the caller reads the files.
 */
export function findLeaks(files: { name: string; text: string }[], secrets: Iterable<string>): Leak[] {
  const wanted = [...new Set(secrets)].filter((s) => s.length > 0);
  const leaks: Leak[] = [];
  for (const { name, text } of files) {
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (i > 0 && lines[i - 1].trimEnd().endsWith(ROOT_KEY_NOTICE)) continue;
      for (const secret of wanted) {
        if (lines[i].includes(secret)) leaks.push({ file: name, line: i + 1, secret: maskSecret(secret) });
      }
    }
  }
  return leaks;
}

/**
 * Reads the run's folder: `*.log` files are log output (in-process servers' pino files, child processes' stdout and
 * stderr), `secrets-*.txt` the secrets the test clients saw. Returns the leaks and what was checked.
 */
export function checkLogDir(dir: string): { leaks: Leak[]; logFiles: number; logLines: number; secrets: number } {
  const names = readdirSync(dir);
  const secrets = new Set<string>();
  for (const name of names.filter((n) => n.startsWith("secrets-") && n.endsWith(".txt"))) {
    for (const line of readFileSync(join(dir, name), "utf8").split("\n")) if (line) secrets.add(line);
  }
  const files = names.filter((n) => n.endsWith(".log")).map((name) => ({ name, text: readFileSync(join(dir, name), "utf8") }));
  const logLines = files.reduce((sum, f) => sum + f.text.split("\n").filter(Boolean).length, 0);
  return { leaks: findLeaks(files, secrets), logFiles: files.length, logLines, secrets: secrets.size };
}
