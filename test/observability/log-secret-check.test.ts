import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLogDir, findLeaks, maskSecret } from "../setup/log-secret-check.js";

const ROOT_KEY = "kw_root_5kQ3xXq9bWmV1rT8sLpN2d";
const KEY = "sk_4hG7jK2mN9pQ3rS6tV8wX1yZ";

describe("the end-of-run log-secret check", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const runFolder = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), "keyward-log-check-"));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };

  it("finds a recorded secret in any log file, by file and line, and reports it masked", () => {
    const dir = runFolder({
      "secrets-101.txt": `${ROOT_KEY}\n`,
      "secrets-102.txt": `${KEY}\n`,
      "server-101.log": `{"msg":"request","status":200}\n{"msg":"request failed","err":{"message":"bad key ${KEY}"}}\n`,
      "server-process-7.log": "Keyward listening on http://127.0.0.1:1\n",
    });
    const result = checkLogDir(dir);
    expect(result).toEqual({
      leaks: [{ file: "server-101.log", line: 2, secret: "sk_4…(27 chars)" }], logFiles: 2, logLines: 3, secrets: 2,
    });
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it("passes when no log line holds a secret", () => {
    const dir = runFolder({
      "secrets-1.txt": `${ROOT_KEY}\n${KEY}\n`,
      "server-1.log": `{"msg":"request","requestId":"req_1","route":"KeysService.VerifyKey","status":200}\n`,
      "cli-2.log": "keyward: workspace ws_1 does not exist\n",
    });
    expect(checkLogDir(dir)).toEqual({ leaks: [], logFiles: 2, logLines: 2, secrets: 2 });
  });

  it("allows only the bootstrap's one-time root key display, not the same key anywhere else", () => {
    const display = `Created workspace ws_1 and its first root key (key_1); it is shown only this once:\n  ${ROOT_KEY}\n`;
    expect(findLeaks([{ name: "server-process-1.log", text: display }], [ROOT_KEY])).toEqual([]);
    const again = `${display}{"msg":"request","note":"${ROOT_KEY}"}\n`;
    expect(findLeaks([{ name: "server-process-1.log", text: again }], [ROOT_KEY]))
      .toEqual([{ file: "server-process-1.log", line: 3, secret: maskSecret(ROOT_KEY) }]);
  });

  it("finds every secret of a line, and secrets inside longer text", () => {
    const leaks = findLeaks([{ name: "a.log", text: `x${KEY}y ${ROOT_KEY}` }], [KEY, ROOT_KEY, "not_there_0123456789"]);
    expect(leaks.map((l) => l.secret)).toEqual([maskSecret(KEY), maskSecret(ROOT_KEY)]);
  });
});
