import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { recordSecret } from "../support/secret-record.js";
import { keyward, startServerProcess, tempDataDir, type ServerProcess } from "./keyward-cli.js";

const ROOT_KEY = "kw_root_cli_import_0123456789abcdef";
const sha256 = (text: string, encoding: "base64" | "hex" = "base64") => createHash("sha256").update(text).digest(encoding);
const plaintextOf = (line: number) => `imp_${line}_${sha256(`salt${line}`, "hex").slice(0, 20)}`;

async function call(server: ServerProcess, path: string, body: unknown, rootKey = ROOT_KEY) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${rootKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function totalKeys(server: ServerProcess, apiId: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}/v1/apis.listKeys?apiId=${apiId}&limit=1`, { headers: { authorization: `Bearer ${ROOT_KEY}` } });
  return ((await response.json()) as { total: number }).total;
}

/** The key line of line `n` (1-based) of a generated file: every tenth with an owner, every seventh with 5 credits. */
function goodLine(n: number, plaintext = plaintextOf(n)): string {
  const key: Record<string, unknown> = { hash: sha256(plaintext) };
  if (n % 10 === 0) key.externalId = `customer_${n % 50}`;
  if (n % 7 === 0) key.credits = { remaining: 5 };
  if (n % 13 === 0) key.meta = { plan: "pro", line: n };
  return JSON.stringify(key);
}

// One percent of the lines are bad, five ways; each kind's reason as the failed file must give it.
const BAD_KINDS = [
  { line: () => `{"hash":"${sha256("x")}"`, reason: /^not valid JSON/ },
  { line: () => JSON.stringify({ hash: "not-a-sha256" }), reason: /^hash: must be 44 characters/ },
  { line: (n: number) => JSON.stringify({ hash: sha256(plaintextOf(n)), colour: "red" }), reason: /^colour: is not a known field/ },
  { line: (n: number) => goodLine(n - 1), reason: /^repeats the hash of line (\d+)$/ },
  { line: (n: number) => JSON.stringify({ hash: sha256(plaintextOf(n)), credits: { remaining: -1 } }), reason: /^credits\.remaining: / },
];
const isBad = (n: number) => n % 100 === 37;
const badKind = (n: number) => BAD_KINDS[Math.floor(n / 100) % BAD_KINDS.length];

function generated(lines: number): string {
  const out: string[] = [];
  for (let n = 1; n <= lines; n++) out.push(isBad(n) ? badKind(n).line(n) : goodLine(n));
  return `${out.join("\n")}\n`;
}

/** The failed file as pairs of the line number its comment names, the reason, and the line itself. */
function failedEntries(text: string) {
  const rows = text.trimEnd().split("\n");
  const entries: { line: number; reason: string; text: string }[] = [];
  for (let i = 0; i < rows.length; i += 2) {
    const match = /^# line (\d+): (.*)$/.exec(rows[i]);
    expect(match, rows[i]).not.toBeNull();
    entries.push({ line: Number(match![1]), reason: match![2], text: rows[i + 1] });
  }
  return entries;
}

describe("keyward import", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  let server: ServerProcess;
  let workspaceId: string;
  let apiId: string;
  beforeAll(async () => {
    dirs = await tempDataDir();
    server = await startServerProcess({ dataDir: dirs.dataDir, env: { KEYWARD_ROOT_KEY: ROOT_KEY } });
    workspaceId = /Created workspace (ws_\w+)/.exec(server.output())![1];
    apiId = (await call(server, "/v2/apis.createApi", { name: "imported" })).body.data.apiId;
  });
  afterAll(async () => {
    await server?.stop();
    await dirs?.remove();
  });

  it("refuses to open the embedded store while a server holds it (exit 2), pointing to --url", async () => {
    await writeFile(join(dirs.root, "one.jsonl"), `${goodLine(1)}\n`);
    const result = await keyward(["import", "--workspace", workspaceId, "--api", apiId, join(dirs.root, "one.jsonl")], dirs);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/in use by a running Keyward; stop it, or import through it with --url/);
  });

  it("imports through a running server with --url: a bar on a terminal, the bad lines in the failed file, the keys verifiable at once", async () => {
    const file = join(dirs.root, "through-server.jsonl");
    const lines = [goodLine(1, "srv_first_key_0123456789"), JSON.stringify({ hash: "short" }), goodLine(3, "srv_third_key_0123456789")];
    await writeFile(file, `${lines.join("\n")}\n\n# a comment\n`);
    const frames: string[] = [];
    const out: string[] = [];
    const code = await runCli({
      argv: ["import", "--api", apiId, "--url", server.baseUrl, file],
      env: { KEYWARD_ROOT_KEY: ROOT_KEY },
      out: (line) => out.push(line),
      err: (line) => out.push(`stderr: ${line}`),
      progress: (text) => frames.push(text),
      tty: true,
    });
    expect(code).toBe(3);
    expect(out[0]).toBe(`Imported 2 of 3 keys into ${apiId} through ${server.baseUrl}.`);
    expect(out[1]).toBe(`1 line was not imported; it is in ${file}.failed, each after a "# line N: reason" comment.`);
    expect(frames.at(-1)).toMatch(/^\r\[#{24}\] 100%  2 imported  1 failed  [\d,]+ keys\/s\n$/);
    expect(failedEntries(await readFile(`${file}.failed`, "utf8"))).toEqual([
      { line: 2, reason: "hash: must be 44 characters of standard base64 (a SHA-256 digest)", text: lines[1] },
    ]);
    recordSecret("srv_first_key_0123456789");
    const verified = await call(server, "/v2/keys.verifyKey", { key: "srv_first_key_0123456789" });
    expect(verified.body.data).toMatchObject({ valid: true, code: "VALID" });
  });

  it("prints the summary as JSON with --json", async () => {
    const file = join(dirs.root, "json.jsonl");
    await writeFile(file, `${goodLine(21, "json_key_0123456789abcd")}\n{"hash":"short"}\n`);
    const result = await keyward(["import", "--api", apiId, "--url", server.baseUrl, "--json", file], { ...dirs, env: { KEYWARD_ROOT_KEY: ROOT_KEY } });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({ apiId, lines: 2, imported: 1, failed: 1, failedFile: `${file}.failed` });
  });

  it("stops (exit 1) naming the permission when the root key may not create keys, and imports nothing", async () => {
    const created = await call(server, "/v2/rootKeys.createRootKey", { name: "reader", permissions: ["api.*.read_api"] });
    const readOnly = created.body.data.key as string;
    recordSecret(readOnly);
    const file = join(dirs.root, "forbidden.jsonl");
    await writeFile(file, `${goodLine(11, "forbidden_key_0123456789")}\n`);
    const before = await totalKeys(server, apiId);
    const result = await keyward(["import", "--api", apiId, "--url", server.baseUrl, file], { ...dirs, env: { KEYWARD_ROOT_KEY: readOnly } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`keyward: import stopped: the server answered 403: Missing permission: api.*.create_key`);
    expect(await totalKeys(server, apiId)).toBe(before);
  });

  it("imports 100,000 lines with 1 % bad ones into the embedded store, reports each bad line with its reason, and imports the fixed file", async () => {
    const before = await totalKeys(server, apiId);
    await server.stop();
    const file = join(dirs.root, "keys.jsonl");
    await writeFile(file, generated(100_000));

    const first = await keyward(["import", "--workspace", workspaceId, "--api", apiId, file], dirs);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain(`Imported 99,000 of 100,000 keys into ${apiId} through the embedded store in ${dirs.dataDir}.`);
    expect(first.stdout).toContain(`1,000 lines were not imported; they are in ${file}.failed`);
    expect(first.stderr.trimEnd().split("\n").at(-1)).toMatch(/^import: 100% \(99,000 imported, 1,000 failed, [\d,]+ keys\/s\)$/);
    const entries = failedEntries(await readFile(`${file}.failed`, "utf8"));
    expect(entries.map((e) => e.line)).toEqual(Array.from({ length: 1000 }, (_, i) => i * 100 + 37));
    for (const entry of entries) {
      const kind = badKind(entry.line);
      expect(entry.reason, `line ${entry.line}`).toMatch(kind.reason);
      expect(entry.text).toBe(kind.line(entry.line));
      if (kind === BAD_KINDS[3]) expect(entry.reason).toBe(`repeats the hash of line ${entry.line - 1}`);
    }

    // Fixed where it stands: each bad line replaced by a good one, the comments left in (they are skipped).
    const fixed = entries.flatMap((e) => [`# line ${e.line}: ${e.reason}`, goodLine(e.line, `fixed_${e.line}_0123456789`)]);
    await writeFile(`${file}.failed`, `${fixed.join("\n")}\n`);
    const second = await keyward(["import", "--workspace", workspaceId, "--api", apiId, `${file}.failed`], dirs);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(`Imported 1,000 of 1,000 keys into ${apiId} through the embedded store in ${dirs.dataDir}.`);

    server = await startServerProcess({ dataDir: dirs.dataDir, env: { KEYWARD_ROOT_KEY: ROOT_KEY } });
    expect(await totalKeys(server, apiId)).toBe(before + 100_000);
    for (const key of [plaintextOf(1), plaintextOf(70), "fixed_137_0123456789", plaintextOf(99_999)]) recordSecret(key);
    const plain = await call(server, "/v2/keys.verifyKey", { key: plaintextOf(1) });
    expect(plain.body.data).toMatchObject({ valid: true, code: "VALID" });
    const owned = await call(server, "/v2/keys.verifyKey", { key: plaintextOf(70) });
    expect(owned.body.data).toMatchObject({ valid: true, credits: 4, identity: { externalId: "customer_20" } });
    const fixedKey = await call(server, "/v2/keys.verifyKey", { key: "fixed_137_0123456789" });
    expect(fixedKey.body.data).toMatchObject({ valid: true, code: "VALID" });
    const missing = await call(server, "/v2/keys.verifyKey", { key: plaintextOf(237) });
    expect(missing.body.data).toMatchObject({ valid: false, code: "NOT_FOUND" });
  }, 180_000);

  it("refuses bad usage before reading anything", async () => {
    const cases: [string[], RegExp][] = [
      [["import", "--api", apiId, "--workspace", workspaceId], /give the file to import/],
      [["import", "--workspace", workspaceId, "f.jsonl"], /--api is required/],
      [["import", "--api", apiId, "f.jsonl"], /give --workspace .* or --url/],
      [["import", "--api", apiId, "--workspace", workspaceId, "--url", "http://x", "f.jsonl"], /not both/],
      [["import", "--api", apiId, "--url", "ftp://x", "f.jsonl"], /--url must be an http/],
      [["import", "--api", apiId, "--url", "http://x", "--hash", "md5", "f.jsonl"], /--hash must be one of sha256_base64, sha256_hex/],
      [["import", "--api", apiId, "--url", "http://x", "--batch", "1001", "f.jsonl"], /--batch must be a whole number from 1 to 1000/],
      [["import", "--api", apiId, "--url", "http://x", "--colour", "f.jsonl"], /Unknown option '--colour'/],
    ];
    for (const [argv, message] of cases) {
      const err: string[] = [];
      const code = await runCli({ argv, env: {}, out: () => {}, err: (line) => err.push(line) });
      expect(code, argv.join(" ")).toBe(1);
      expect(err[0], argv.join(" ")).toMatch(message);
    }
  });
});
