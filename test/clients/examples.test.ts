import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GO_MODULE, generateClients } from "../../scripts/generate-clients.mjs";
import { useKeyward } from "../support/use-keyward.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
// Debian's interpreter, which has python3-grpcio; a `python3` earlier on PATH (pyenv, venv) may not.
const PYTHON = "/usr/bin/python3";
// Least privilege: exactly what the examples call.
const EXAMPLE_PERMISSIONS = ["api.*.create_api", "api.*.create_key", "api.*.verify_key"];

/** The lines every example prints, but for how each language names the failed call's status code. */
const transcript = (unauthenticated: string) => [
  "api created: true",
  "key created: true",
  "verify 1: VALID credits=2",
  "verify 2: VALID credits=1",
  "verify 3: VALID credits=0",
  "verify 4: USAGE_EXCEEDED credits=0",
  `wrong root key: ${unauthenticated}`,
  "health: SERVING",
];

describe("examples/ run against a real server with the stubs `npm run generate:clients` writes", () => {
  const harness = useKeyward();
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "keyward-clients-"));
    generateClients({ out: join(dir, "out") });
    const { key } = await harness.seed.rootKey(EXAMPLE_PERMISSIONS);
    env = { ...process.env, KEYWARD_ROOT_KEY: key };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the Python example (Debian's python3-grpcio) verifies until USAGE_EXCEEDED and is refused a wrong root key", async () => {
    // Asynchronously: the server under test runs in this process.
    const { stdout } = await run(PYTHON, [join(root, "examples/python/example.py"), `127.0.0.1:${harness.keyward.port}`], {
      env: { ...env, PYTHONPATH: join(dir, "out/python") },
      encoding: "utf8",
    });
    expect(stdout.trim().split("\n")).toEqual(transcript("UNAUTHENTICATED"));
  });

  it("the Go example builds offline (GOPATH mode on Debian's Go libraries, GOPROXY=off) and prints the same", async () => {
    // GOPATH mode: the generated module at its import path, every other package from /usr/share/gocode.
    const gopath = join(dir, "gopath");
    mkdirSync(join(gopath, "src", GO_MODULE, ".."), { recursive: true });
    cpSync(join(dir, "out/go"), join(gopath, "src", GO_MODULE), { recursive: true });
    const goEnv = { ...env, GO111MODULE: "off", GOPATH: `${gopath}:/usr/share/gocode`, GOPROXY: "off", GOFLAGS: "" };
    const binary = join(dir, "example-go");
    await run("go", ["build", "-o", binary, "."], { cwd: join(root, "examples/go"), env: goEnv });
    const { stdout } = await run(binary, [`127.0.0.1:${harness.keyward.port}`], { env, encoding: "utf8" });
    expect(stdout.trim().split("\n")).toEqual(transcript("Unauthenticated"));
  }, 180_000);

  it("a missing root key is reported before any call", async () => {
    const failure = await run(PYTHON, [join(root, "examples/python/example.py"), `127.0.0.1:${harness.keyward.port}`], {
      env: { ...env, KEYWARD_ROOT_KEY: "", PYTHONPATH: join(dir, "out/python") },
      encoding: "utf8",
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringMatching(/^set KEYWARD_ROOT_KEY/) });
  });
});
