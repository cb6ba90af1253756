import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../../config.js";
import type { Clock } from "../../domain/clock.js";
import type { RandomBytes } from "../../domain/ids.js";
import { monotonicIds } from "../../domain/ids.js";
import { allPermissions } from "../../domain/permissions.js";
import { openStores } from "../../open-stores.js";
import { createKeyCache } from "../../services/key-cache.js";
import { createKeyImporter } from "../../services/keys/import-keys.js";
import { auditedDocuments } from "../../store/audit/audited-documents.js";
import { DataDirLockedError } from "../../store/embedded/lock-file.js";
import type { ImportCommand } from "./import-args.js";
import { importFile, type ImportSink, type ImportSummary } from "./import-file.js";
import { createProgress } from "./progress.js";
import { ImportStoppedError, serverSink, storeSink } from "./sinks.js";

export interface ImportIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Progress text as it is (a terminal's frames carry their own `\r`). */
  progress: (text: string) => void;
  /** Whether progress goes to a terminal (a bar) or not (plain lines). */
  tty: boolean;
  clock: Clock;
  randomBytes: RandomBytes;
}

/** Exit 3: the import ran to the end, but some lines were not imported (they are in the failed file). */
export const EXIT_SOME_FAILED = 3;

/**
 * `keyward import`: the file into the api, through a server (`--url`, root key from KEYWARD_ROOT_KEY) or straight
 * into the configured store (`--workspace`, as the operator: audited with the actor "cli"). Prints a summary;
 * returns 0 when every line was imported, 3 when some went to the failed file, 1 when the import could not go on,
 * 2 when the embedded store is held by a running server.
 */
export async function runImport(
  command: ImportCommand,
  context: { config: Config; rootKey?: string; io: ImportIo },
): Promise<number> {
  const { io, config } = context;
  const fail = (message: string) => io.err(command.json ? JSON.stringify({ error: { message } }) : `keyward: ${message}`);
  const progress = createProgress({ tty: io.tty, write: io.progress, now: () => io.clock.now() });
  const run = (sink: ImportSink) =>
    importFile({ file: command.file, failedFile: command.failedFile, sink, batchSize: command.batchSize, now: () => io.clock.now(), onProgress: (t) => progress.update(t) });

  let summary: Awaited<ReturnType<typeof run>>;
  let where: string;
  try {
    if (command.url) {
      if (!context.rootKey) {
        fail("--url needs the root key in KEYWARD_ROOT_KEY (api.*.create_key or api.<apiId>.create_key)");
        return 1;
      }
      where = command.url;
      summary = await run(serverSink({ url: command.url, rootKey: context.rootKey, apiId: command.apiId, hashVariant: command.hashVariant }));
    } else {
      const dataDir = resolve(config.dataDir);
      where = config.mongodbUrl ? "the MongoDB store" : `the embedded store in ${dataDir}`;
      if (!config.mongodbUrl && !existsSync(dataDir)) {
        fail(`no Keyward data in ${dataDir}; set KEYWARD_DATA_DIR to the server's data dir (or MONGODB_URL)`);
        return 1;
      }
      let stores: Awaited<ReturnType<typeof openStores>>;
      try {
        stores = await openStores({ ...config, dataDir });
      } catch (error) {
        if (!(error instanceof DataDirLockedError)) throw error;
        fail(`the data dir ${dataDir} is in use by a running Keyward; stop it, or import through it with --url`);
        return 2;
      }
      try {
        summary = await run(operatorSink(command, stores, io, config));
      } finally {
        await stores.close();
      }
    }
  } catch (error) {
    fail(error instanceof ImportStoppedError ? `import stopped: ${error.message}` : `import failed: ${(error as Error).message}`);
    return 1;
  }
  progress.finish(summary.tally);
  report(command, summary, where, io);
  return summary.failed > 0 ? EXIT_SOME_FAILED : 0;
}

/** The import service over the opened stores, as the operator of `command.workspaceId`, every key audited as "cli". */
function operatorSink(command: ImportCommand, stores: Awaited<ReturnType<typeof openStores>>, io: ImportIo, config: Config): ImportSink {
  const auditLogs = stores.auditLogs ?? stores.documents.auditLogs;
  if (!auditLogs) throw new Error("the document store keeps no audit log");
  const workspaceId = command.workspaceId as string;
  const auditId = monotonicIds("log", io.randomBytes);
  const { documents } = auditedDocuments(stores.documents, auditLogs, {
    workspaceId,
    actor: "cli",
    action: "key.create",
    newRecord: () => {
      const time = io.clock.now();
      return { id: auditId(time), time };
    },
  });
  const importer = createKeyImporter({
    documents,
    counters: stores.counters,
    events: stores.events,
    cache: createKeyCache({ clock: io.clock, bus: stores.bus }),
    clock: io.clock,
    randomBytes: io.randomBytes,
    encryptionKey: config.encryptionKey,
  });
  const principal = { workspaceId, rootKeyId: "cli", permissions: new Set(allPermissions()) };
  return storeSink({ importer, principal, apiId: command.apiId, hashVariant: command.hashVariant });
}

function report(command: ImportCommand, summary: ImportSummary, where: string, io: ImportIo): void {
  const { lines, imported, failed, failedFile } = summary;
  if (command.json) {
    io.out(JSON.stringify({ apiId: command.apiId, lines, imported, failed, ...(failedFile ? { failedFile } : {}) }));
    return;
  }
  const n = (value: number) => value.toLocaleString("en-US");
  io.out(`Imported ${n(imported)} of ${n(lines)} keys into ${command.apiId} through ${where}.`);
  if (failedFile) {
    const lines = failed === 1 ? "line was not imported; it is" : "lines were not imported; they are";
    io.out(`${n(failed)} ${lines} in ${failedFile}, each after a "# line N: reason" comment.`);
    io.out(`Fix them there and import that file the same way: keyward import ... ${failedFile}`);
  }
}
