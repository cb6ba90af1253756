import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateClients } from "../../scripts/generate-clients.mjs";
import { useKeyward } from "../support/use-keyward.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// Debian's interpreter, which has python3-grpcio; a `python3` earlier on PATH (pyenv, venv) may not.
const PYTHON = "/usr/bin/python3";

describe("interop: Python grpcio (Debian's python3-grpcio) against the running server", () => {
  const harness = useKeyward();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "keyward-python-"));
    // The stubs `npm run generate:clients` writes (Debian's protoc >= 3.15 and grpc_python_plugin).
    generateClients({ out: join(dir, "out"), languages: ["python"] });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the whole scenario: verify until USAGE_EXCEEDED, auth, validation, deadline, gzip, health", async () => {
    expect(existsSync(PYTHON)).toBe(true);
    // Asynchronously: the server under test runs in this process.
    const { stdout: output } = await promisify(execFile)(PYTHON, [join(root, "test/grpc/python/interop.py"), `127.0.0.1:${harness.keyward.port}`, harness.keyward.rootKey], {
      env: { ...process.env, PYTHONPATH: join(dir, "out/python") },
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual({
      verifications: [["VALID", 1], ["VALID", 0], ["USAGE_EXCEEDED", 0]],
      unauthenticated: "UNAUTHENTICATED",
      invalid: { code: "INVALID_ARGUMENT", message: expect.stringMatching(/^name: /), fields: ["name"] },
      deadline: "DEADLINE_EXCEEDED",
      gzip: true,
      health: "SERVING",
    });
  });
});
