import { parseArgs } from "node:util";
import { IMPORT_USAGE, parseImportArgs, type ImportCommand } from "./import/import-args.js";

/** A command that works on the store; `json` asks for machine-readable output. */
export type StoreCommand =
  | { kind: "workspace-create"; name: string; json: boolean }
  | {
    kind: "root-key-create";
    workspaceId: string;
    permissions: string[];
    name?: string;
    /** Unix ms after which the key stops authenticating. */
    expires?: number;
    json: boolean;
  }
  | { kind: "root-key-list"; workspaceId: string; json: boolean }
  | { kind: "root-key-revoke"; workspaceId: string; keyId: string; json: boolean };

/** `unknownCommand` marks an error that the usage text answers better than a one-line hint. */
export type ParsedCommand =
  | { command: StoreCommand | ImportCommand }
  | { help: true }
  | { error: string; unknownCommand?: true };

export const USAGE = `Usage: keyward <command> [options]

Operator commands on the store Keyward is configured with: the embedded store in KEYWARD_DATA_DIR (default
./data), or MongoDB when MONGODB_URL is set. The embedded store cannot be opened while a Keyward server runs
on it; use the API then.

Commands:
  workspace create --name <name>
      Create a workspace and its first root key, which holds every permission. Prints the key, only this once.
  root-key create --workspace <id> --permission <p> [--permission <p> ...] [--name <name>] [--expires <unix ms>]
      Create a root key holding the given catalogue permissions (e.g. api.*.verify_key; several may also be
      given comma-separated). Prints the key, only this once.
  root-key list --workspace <id>
      List the live root keys of a workspace: id, name, start, permissions, created. Never their secrets.
  root-key revoke --workspace <id> --id <keyId>
      Revoke a root key; it stops authenticating at once.
${IMPORT_USAGE}
  help
      Show this text.

Options:
  --json   Print machine-readable JSON (errors too, on stderr).

Exit codes: 0 done; 1 bad input, or an unknown workspace or key; 2 the data dir is in use by a running Keyward;
3 an import finished with some lines not imported.`;

const json = { type: "boolean", default: false } as const;
const help = { type: "boolean", short: "h", default: false } as const;

/**
 * Reads argv (without node and script) into a command, a request for help, or an error naming what is wrong.
 * Pure: touches neither the store nor the console.
 */
export function parseCommand(argv: readonly string[]): ParsedCommand {
  const [group, action, ...rest] = argv;
  if (group === undefined || group === "help" || group === "--help" || group === "-h") return { help: true };
  if (group === "import") {
    try {
      const parsed = parseImportArgs(argv.slice(1));
      return "help" in parsed ? parsed : { command: parsed };
    } catch (error) {
      return { error: `import: ${(error as Error).message}` };
    }
  }
  const name = `${group} ${action ?? ""}`.trim();
  try {
    switch (name) {
      case "workspace create": {
        const { values } = parse(rest, { name: { type: "string" }, json, help });
        if (values.help) return { help: true };
        const wsName = required(values.name, "--name");
        checkName(wsName, "--name");
        return { command: { kind: "workspace-create", name: wsName, json: values.json } };
      }
      case "root-key create": {
        const { values } = parse(rest, {
          workspace: { type: "string" },
          permission: { type: "string", multiple: true },
          name: { type: "string" },
          expires: { type: "string" },
          json,
          help,
        });
        if (values.help) return { help: true };
        const permissions = (values.permission ?? []).flatMap((p) => p.split(",")).map((p) => p.trim()).filter(Boolean);
        if (permissions.length === 0) throw new UsageError("--permission is required (give it once per permission)");
        if (values.name !== undefined) checkName(values.name, "--name");
        return {
          command: {
            kind: "root-key-create",
            workspaceId: required(values.workspace, "--workspace"),
            permissions: [...new Set(permissions)],
            ...(values.name !== undefined && { name: values.name }),
            ...(values.expires !== undefined && { expires: unixMs(values.expires, "--expires") }),
            json: values.json,
          },
        };
      }
      case "root-key list": {
        const { values } = parse(rest, { workspace: { type: "string" }, json, help });
        if (values.help) return { help: true };
        return { command: { kind: "root-key-list", workspaceId: required(values.workspace, "--workspace"), json: values.json } };
      }
      case "root-key revoke": {
        const { values } = parse(rest, { workspace: { type: "string" }, id: { type: "string" }, json, help });
        if (values.help) return { help: true };
        return {
          command: {
            kind: "root-key-revoke",
            workspaceId: required(values.workspace, "--workspace"),
            keyId: required(values.id, "--id"),
            json: values.json,
          },
        };
      }
      default:
        return { error: `unknown command: ${name}`, unknownCommand: true };
    }
  } catch (error) {
    // parseArgs reports unknown options, missing values and stray positionals as TypeErrors with a clear message.
    if (error instanceof UsageError || error instanceof TypeError) return { error: `${name}: ${error.message}` };
    throw error;
  }
}

class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>["options"];

function parse<O extends Options>(args: string[], options: O) {
  return parseArgs({ args, options, strict: true, allowPositionals: false });
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === "") throw new UsageError(`${flag} is required`);
  return value.trim();
}

// The API's limits for workspace and root-key names (proto: 1 to 255 characters).
function checkName(value: string, flag: string): void {
  if (value.length < 1 || value.length > 255) throw new UsageError(`${flag} must be 1 to 255 characters`);
}

function unixMs(value: string, flag: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new UsageError(`${flag} must be a unix timestamp in milliseconds, got ${JSON.stringify(value)}`);
  }
  return ms;
}
