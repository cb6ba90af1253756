/**
 * vitest globalSetup: a folder for this run's logs (KEYWARD_TEST_LOG_DIR, inherited by the test workers and the
 * servers they spawn). In-process servers log there (test/support/test-logger.ts), child processes' output is saved
 * there (test/cli/keyward-cli.ts), and the test clients record there every secret they see
 * (test/support/secret-record.ts). At the end of the run every log line is searched for every secret: one found
 * fails the run, reported by file and line with the secret masked. KEYWARD_TEST_LOG_DIR given from outside is used
 * (and kept) as is.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkLogDir } from "./log-secret-check.js";

export default function setup(): () => void {
  const given = process.env.KEYWARD_TEST_LOG_DIR;
  const dir = given || mkdtempSync(join(tmpdir(), "keyward-test-logs-"));
  process.env.KEYWARD_TEST_LOG_DIR = dir;
  return () => {
    const { leaks, logFiles, logLines, secrets } = checkLogDir(dir);
    if (leaks.length > 0) {
      const where = leaks.slice(0, 20).map((l) => `  ${l.file}:${l.line} holds ${l.secret}`).join("\n");
      // vitest reports an error thrown here but still exits 0, so the run fails through the exit code. The folder is
      // kept for inspection.
      console.error(`\nFAIL log-secret check: ${leaks.length} secret(s) found in the logs of this run (${dir}):\n${where}\n`);
      process.exitCode = 1;
      return;
    }
    console.log(`log-secret check: ${secrets} secrets, none in ${logLines} log lines of ${logFiles} files`);
    if (!given) rmSync(dir, { recursive: true, force: true });
  };
}
