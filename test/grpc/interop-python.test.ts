import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeProtoDeps } from "../../scripts/proto-deps.mjs";
import { useKeyward } from "../support/use-keyward.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// Debian's interpreter, which has python3-grpcio; a `python3` earlier on PATH (pyenv, venv) may not.
const PYTHON = "/usr/bin/python3";

/**
 * Generates Python stubs from proto/ with Debian's protoc (3.21: proto3 `optional` needs >= 3.15; the protoc bundled
 * in python3-grpc-tools is 3.5) and grpc_python_plugin, into a temp dir. grpc/health is left out on purpose: its
 * generated `grpc/` package would shadow the real `grpc` module.
 */
function generatePythonStubs(dir: string): void {
  const deps = join(dir, "deps");
  writeProtoDeps(deps);
  const out = join(dir, "out");
  execFileSync("mkdir", ["-p", out]);
  const ours = readdirSync(join(root, "proto/keyward/v1")).map((f) => `keyward/v1/${f}`);
  const theirs = ["buf/validate/validate.proto", "google/api/annotations.proto", "google/api/http.proto", "google/rpc/status.proto", "google/rpc/error_details.proto"];
  execFileSync("protoc", [
    `-I${join(root, "proto")}`, `-I${deps}`, `--python_out=${out}`, `--grpc_python_out=${out}`,
    "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin", ...ours, ...theirs,
  ], { stdio: "pipe" });
}

describe("interop: Python grpcio (Debian's python3-grpcio) against the running server", () => {
  const harness = useKeyward();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "keyward-python-"));
    generatePythonStubs(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the whole scenario: verify until USAGE_EXCEEDED, auth, validation, deadline, gzip, health", async () => {
    expect(existsSync(PYTHON)).toBe(true);
    // Asynchronously: the server under test runs in this process.
    const { stdout: output } = await promisify(execFile)(PYTHON, [join(root, "test/grpc/python/interop.py"), `127.0.0.1:${harness.keyward.port}`, harness.keyward.rootKey], {
      env: { ...process.env, PYTHONPATH: join(dir, "out") },
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual({
      verifications: [["VALID", 1], ["VALID", 0], ["USAGE_EXCEEDED", 0]],
      unauthenticated: "UNAUTHENTICATED",
      invalid: { code: "INVALID_ARGUMENT", message: expect.stringMatching(/^name: /), fields: ["name"] },
      deadline: "DEADLINE_EXCEEDED",
      gzip: true,
      health: [8, 1],
    });
  });
});
