import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyward, keywardJson, tempDataDir } from "./keyward-cli.js";

describe("keyward refusals and usage", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  let workspaceId: string;
  let firstKeyId: string;
  const keyIds = async () =>
    (await keywardJson(["root-key", "list", "--workspace", workspaceId], dirs)).rootKeys.map((k: { keyId: string }) => k.keyId);

  beforeAll(async () => {
    dirs = await tempDataDir();
    const created = await keywardJson(["workspace", "create", "--name", "acme"], dirs);
    workspaceId = created.workspaceId;
    firstKeyId = created.rootKey.keyId;
  });
  afterAll(() => dirs.remove());

  it("refuses permissions outside the catalogue with exit 1, naming every bad one, and creates no key", async () => {
    const text = await keyward([
      "root-key", "create", "--workspace", workspaceId,
      "--permission", "api.*.read_api", "--permission", "api.*.fly", "--permission", "rootkey.ws_1.read_root_key",
    ], dirs);
    expect(text).toEqual({
      code: 1,
      stdout: "",
      stderr: "keyward: unknown permissions: api.*.fly, rootkey.ws_1.read_root_key\n",
    });
    const json = await keyward(["root-key", "create", "--workspace", workspaceId, "--permission", "nope", "--json"], dirs);
    expect(json.code).toBe(1);
    expect(json.stdout).toBe("");
    expect(JSON.parse(json.stderr)).toEqual({ error: { message: "unknown permission: nope", permissions: ["nope"] } });
    expect(await keyIds()).toEqual([firstKeyId]);
  });

  it("refuses an unknown workspace with exit 1 for create, list and revoke", async () => {
    const where = `in the embedded store in ${dirs.dataDir}`;
    for (const args of [
      ["root-key", "create", "--workspace", "ws_unknown", "--permission", "api.*.read_api"],
      ["root-key", "list", "--workspace", "ws_unknown"],
      ["root-key", "revoke", "--workspace", "ws_unknown", "--id", firstKeyId],
    ]) {
      // One after the other: each run locks the data dir.
      const result = await keyward(args, dirs);
      expect(result).toEqual({ code: 1, stdout: "", stderr: `keyward: workspace ws_unknown does not exist ${where}\n` });
    }
    expect(await keyIds()).toEqual([firstKeyId]);
  });

  it("refuses revoking a key of another workspace with exit 1 and leaves it live", async () => {
    const other = await keywardJson(["workspace", "create", "--name", "other"], dirs);
    const result = await keyward(["root-key", "revoke", "--workspace", workspaceId, "--id", other.rootKey.keyId], dirs);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `keyward: workspace ${workspaceId} has no live root key ${other.rootKey.keyId}\n`,
    });
    const listed = await keywardJson(["root-key", "list", "--workspace", other.workspaceId], dirs);
    expect(listed.rootKeys.map((k: { keyId: string }) => k.keyId)).toEqual([other.rootKey.keyId]);
  });

  it("refuses an expiry that is not a future unix-ms timestamp with exit 1", async () => {
    const base = ["root-key", "create", "--workspace", workspaceId, "--permission", "api.*.read_api", "--expires"];
    const past = await keyward([...base, "1000"], dirs);
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/^keyward: --expires 1000 is not in the future \(now is \d+\)\n$/);
    const garbage = await keyward([...base, "tomorrow"], dirs);
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toBe(
      'keyward: root-key create: --expires must be a unix timestamp in milliseconds, got "tomorrow"\nRun `keyward help` for usage.\n',
    );
    expect(await keyIds()).toEqual([firstKeyId]);
  });

  it("refuses missing flags and unknown options with exit 1 and a hint", async () => {
    expect(await keyward(["root-key", "create", "--workspace", workspaceId], dirs)).toEqual({
      code: 1,
      stdout: "",
      stderr: "keyward: root-key create: --permission is required (give it once per permission)\nRun `keyward help` for usage.\n",
    });
    expect(await keyward(["root-key", "revoke", "--workspace", workspaceId], dirs)).toEqual({
      code: 1,
      stdout: "",
      stderr: "keyward: root-key revoke: --id is required\nRun `keyward help` for usage.\n",
    });
    const unknownOption = await keyward(["root-key", "list", "--workspace", workspaceId, "--all"], dirs);
    expect(unknownOption.code).toBe(1);
    expect(unknownOption.stderr).toMatch(/^keyward: root-key list: Unknown option '--all'/);
  });

  it("refuses a data dir that does not exist instead of creating an empty store there", async () => {
    const missing = join(dirs.root, "typo");
    const result = await keyward(["root-key", "list", "--workspace", workspaceId], { dataDir: missing });
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `keyward: no Keyward data in ${missing}; set KEYWARD_DATA_DIR to the server's data dir (or MONGODB_URL)\n`,
    });
    expect(existsSync(missing)).toBe(false);
  });

  it("reports a MongoDB that does not answer with exit 1, without the URL's credentials", async () => {
    const url = "mongodb://operator:s3cret@127.0.0.1:1/keyward?serverSelectionTimeoutMS=300";
    const result = await keyward(["root-key", "list", "--workspace", workspaceId], { ...dirs, env: { MONGODB_URL: url } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^keyward: cannot open the MongoDB store \(MONGODB_URL\): cannot connect to MongoDB at /);
    expect(result.stderr).not.toContain("s3cret");
  });

  it("prints the usage with exit 0 for help, --help and no arguments, and with exit 1 for an unknown command", async () => {
    // In parallel: help never opens the store.
    const runs = [["help"], ["--help"], [], ["root-key", "create", "--help"]].map((args) => keyward(args, dirs));
    for (const result of await Promise.all(runs)) {
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: keyward <command> \[options\]\n/);
      expect(result.stdout).toContain("root-key create --workspace <id> --permission <p>");
      expect(result.stderr).toBe("");
    }
    const unknown = await keyward(["frobnicate", "now"], dirs);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toMatch(/^keyward: unknown command: frobnicate now\n\nUsage: keyward <command> \[options\]\n/);
  });
});
