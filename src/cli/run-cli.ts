import { randomBytes as nodeRandomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { readConfig } from "../config.js";
import { systemClock, type Clock } from "../domain/clock.js";
import type { RandomBytes } from "../domain/ids.js";
import { CLI_AUDIT_ACTIONS } from "../domain/audit-actions.js";
import { monotonicIds } from "../domain/ids.js";
import { openAuditedDocumentStore, openDocumentStore } from "../open-stores.js";
import { auditedDocuments } from "../store/audit/audited-documents.js";
import { DataDirLockedError } from "../store/embedded/lock-file.js";
import type { AuditLogStore } from "../store/ports/audit.js";
import type { DocumentStore } from "../store/ports/documents.js";
import { closeRedis, createRedisConnection } from "../store/redis/connection.js";
import { publishInvalidation } from "../store/redis/invalidation-bus.js";
import { ROOT_KEY_CACHE_TTL_MS } from "../transport/auth.js";
import { runCommand } from "./commands.js";
import { runImport } from "./import/run-import.js";
import { parseCommand, USAGE, type StoreCommand } from "./parse-command.js";

export interface RunCliOptions {
  /** Arguments after the program name. */
  argv: readonly string[];
  /** The same variables the server reads: KEYWARD_DATA_DIR, MONGODB_URL, REDIS_URL (to tell running servers). */
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  err: (line: string) => void;
  clock?: Clock;
  randomBytes?: RandomBytes;
  /** `keyward import`'s progress output (default stderr) and whether it is a terminal (a bar rather than lines). */
  progress?: (text: string) => void;
  tty?: boolean;
}

/** 2: the embedded store's data dir is locked by a running Keyward. */
export const EXIT_STORE_LOCKED = 2;

// What to call instead when a running server holds the data dir.
const API_FOR: Record<StoreCommand["kind"], string> = {
  "workspace-create": "POST /v2/workspaces.createWorkspace",
  "root-key-create": "POST /v2/rootKeys.createRootKey",
  "root-key-list": "POST /v2/rootKeys.listRootKeys",
  "root-key-revoke": "POST /v2/rootKeys.deleteRootKey",
};

/**
 * The whole CLI behind `keyward`: parses argv, opens the configured store, runs the command, closes the store.
 * Returns the exit code: 0 done (help included), 1 bad usage, refused input or any other failure, 2 the embedded
 * data dir is in use by a running Keyward.
 */
export async function runCli(options: RunCliOptions): Promise<number> {
  const { out, err } = options;
  const parsed = parseCommand(options.argv);
  if ("help" in parsed) {
    out(USAGE);
    return 0;
  }
  if ("error" in parsed) {
    err(`keyward: ${parsed.error}`);
    if (parsed.unknownCommand) err(`\n${USAGE}`);
    else err("Run `keyward help` for usage.");
    return 1;
  }
  const { command } = parsed;
  const fail = (message: string) => {
    err(command.json ? JSON.stringify({ error: { message } }) : `keyward: ${message}`);
  };

  let config;
  try {
    // The import's root key is the client's (KEYWARD_ROOT_KEY), not one for the store to ensure.
    config = readConfig(command.kind === "import" ? { ...options.env, KEYWARD_ROOT_KEY: undefined } : options.env);
  } catch (error) {
    fail(messageOf(error));
    return 1;
  }
  if (command.kind === "import") {
    return runImport(command, {
      config,
      rootKey: options.env.KEYWARD_ROOT_KEY,
      io: {
        out,
        err,
        progress: options.progress ?? ((text) => process.stderr.write(text)),
        tty: options.tty ?? false,
        clock: options.clock ?? systemClock,
        randomBytes: options.randomBytes ?? ((size: number) => new Uint8Array(nodeRandomBytes(size))),
      },
    });
  }
  const dataDir = resolve(config.dataDir);
  const storeLabel = config.mongodbUrl ? "MongoDB store (MONGODB_URL)" : `embedded store in ${dataDir}`;
  // Opening the embedded store creates its directory; only a new workspace should do that, so a mistyped
  // KEYWARD_DATA_DIR (or the wrong working directory) is reported instead of leaving an empty store behind.
  if (!config.mongodbUrl && command.kind !== "workspace-create" && !existsSync(dataDir)) {
    fail(`no Keyward data in ${dataDir}; set KEYWARD_DATA_DIR to the server's data dir (or MONGODB_URL)`);
    return 1;
  }

  // Changes by the CLI are audited like the API's, with "cli" as the actor.
  const action = (CLI_AUDIT_ACTIONS as Record<string, string>)[command.kind];
  const storeConfig = { dataDir, mongodbUrl: config.mongodbUrl };
  let opened: { documents: DocumentStore; auditLogs?: AuditLogStore; close(): Promise<void> };
  try {
    if (action) opened = await openAuditedDocumentStore(storeConfig);
    else {
      const documents = await openDocumentStore(storeConfig);
      opened = { documents, close: () => documents.close() };
    }
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      const pid = /process (\d+)/.exec(error.message)?.[1];
      fail(
        `the data dir ${dataDir} is in use by a running Keyward (${pid ? `pid ${pid}` : "pid unknown"}); ` +
          `stop it, or use the API: ${API_FOR[command.kind]}`,
      );
      return EXIT_STORE_LOCKED;
    }
    fail(`cannot open the ${storeLabel}: ${messageOf(error)}`);
    return 1;
  }

  const clock = options.clock ?? systemClock;
  const randomBytes = options.randomBytes ?? ((size: number) => new Uint8Array(nodeRandomBytes(size)));
  try {
    let store = opened.documents;
    if (action && opened.auditLogs) {
      const auditId = monotonicIds("log", randomBytes);
      store = auditedDocuments(opened.documents, opened.auditLogs, {
        workspaceId: "workspaceId" in command ? command.workspaceId : undefined,
        actor: "cli",
        action,
        newRecord: () => {
          const time = clock.now();
          return { id: auditId(time), time };
        },
      }).documents;
    }
    return await runCommand(command, {
      documents: store,
      clock,
      randomBytes,
      out,
      err,
      storeLabel,
      announceRevocation: config.redisUrl ? announcer(config.redisUrl, err) : undefined,
    });
  } catch (error) {
    fail(messageOf(error));
    return 1;
  } finally {
    await opened.close();
  }
}

/**
 * Publishes a revocation on the servers' invalidation channel. A failure leaves the revocation in place and says
 * when running servers will notice anyway (their root-key cache's TTL).
 */
function announcer(redisUrl: string, err: (line: string) => void) {
  return async (hash: string) => {
    try {
      const redis = await createRedisConnection({ url: redisUrl, name: "keyward-cli" });
      try {
        await publishInvalidation(redis, { kind: "hash", hash });
      } finally {
        await closeRedis(redis);
      }
    } catch (error) {
      err(`keyward: revoked, but running servers could not be told over Redis (${messageOf(error)}); ` +
        `they refuse the key within ${ROOT_KEY_CACHE_TTL_MS / 1000} s`);
    }
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
