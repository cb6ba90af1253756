import { join } from "node:path";
import { pino } from "pino";
import { createLogger, type Logger } from "../../src/observability/logger.js";
import { testLogDir } from "./secret-record.js";

let shared: { logger: Logger; flush(): void } | undefined;

/**
 * The logger in-process test servers use: every request at info, to `server-<pid>.log` in the run's log folder
 * (checked for secrets at the end of the run, see test/setup/log-capture.ts). One file per test process, shared by
 * its servers. Outside a run with log capture, a logger that writes nothing.
 */
export function testLogger(): { logger: Logger; flush(): void } {
  if (shared) return shared;
  const dir = testLogDir();
  shared = dir
    ? createLogger({ level: "info", destination: pino.destination({ dest: join(dir, `server-${process.pid}.log`), sync: false, mkdir: true }) })
    : createLogger({ level: "silent" });
  return shared;
}
