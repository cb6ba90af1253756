import { parseArgs } from "node:util";

/** Hash encodings an import file may hold (MigrateKeysRequest.migration_id). */
export const IMPORT_HASH_VARIANTS = ["sha256_base64", "sha256_hex"] as const;
export type ImportHashVariant = (typeof IMPORT_HASH_VARIANTS)[number];

/** Keys an api takes per import call (MigrateKeysRequest's max_items). */
export const MAX_IMPORT_BATCH = 1000;

/** `keyward import`: a JSON-lines file of keys into one api, in the store (`workspaceId`) or through a server (`url`). */
export interface ImportCommand {
  kind: "import";
  file: string;
  apiId: string;
  hashVariant: ImportHashVariant;
  /** Set when importing straight into the configured store. */
  workspaceId?: string;
  /** Set when importing through a running server (root key from KEYWARD_ROOT_KEY). */
  url?: string;
  /** Where the lines not imported go, each after a `# line N: reason` comment. */
  failedFile: string;
  batchSize: number;
  json: boolean;
}

export const IMPORT_USAGE = `  import --api <apiId> (--workspace <id> | --url <server>) [--hash sha256_base64|sha256_hex] [--failed <file>]
         [--batch <n>] <file>
      Import existing keys from a JSON-lines file, one key a line in the shape of keys.migrateKeys' keys (hash,
      externalId, name, meta, roles, permissions, expires, enabled, credits, ratelimits, ...). --workspace writes
      into the configured store (the server stopped, or MongoDB); --url goes through a running server with the root
      key in KEYWARD_ROOT_KEY (needs api.*.create_key or api.<apiId>.create_key). Lines that fail go to --failed
      (default <file>.failed) after a "# line N: reason" comment: fix them there and import that file. Blank lines
      and lines starting with # are skipped. Exit 3 when some lines were not imported.`;

/** Reads `import`'s options; throws an Error whose message names the wrong option. Pure. */
export function parseImportArgs(argv: readonly string[]): ImportCommand | { help: true } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      api: { type: "string" },
      workspace: { type: "string" },
      url: { type: "string" },
      hash: { type: "string", default: "sha256_base64" },
      failed: { type: "string" },
      batch: { type: "string", default: String(MAX_IMPORT_BATCH) },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length !== 1) throw new Error(positionals.length === 0 ? "give the file to import" : "give exactly one file to import");
  if (!values.api) throw new Error("--api is required");
  if ((values.workspace === undefined) === (values.url === undefined)) {
    throw new Error("give --workspace (into the configured store) or --url (through a running server), not both");
  }
  if (values.url !== undefined && !/^https?:\/\/[^/\s]+/.test(values.url)) throw new Error("--url must be an http:// or https:// address");
  if (!(IMPORT_HASH_VARIANTS as readonly string[]).includes(values.hash)) {
    throw new Error(`--hash must be one of ${IMPORT_HASH_VARIANTS.join(", ")}`);
  }
  const batchSize = Number(values.batch);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_IMPORT_BATCH) {
    throw new Error(`--batch must be a whole number from 1 to ${MAX_IMPORT_BATCH}`);
  }
  const file = positionals[0];
  return {
    kind: "import",
    file,
    apiId: values.api,
    hashVariant: values.hash as ImportHashVariant,
    workspaceId: values.workspace,
    url: values.url?.replace(/\/+$/, ""),
    failedFile: values.failed ?? `${file}.failed`,
    batchSize,
    json: values.json,
  };
}
