#!/usr/bin/env node
// `npm run generate:clients [-- --out DIR] [-- --lang python,go]`: everything a client in another language needs,
// offline, into a git-ignored folder (default dist/clients):
//   proto/   every .proto file Keyward's contract imports (keyward, buf/validate, google/api, google/rpc, grpc/health),
//            for any language's own protoc plugin
//   python/  *_pb2.py, *_pb2_grpc.py and .pyi stubs (protoc + grpc_python_plugin)
//   go/      module keyward.dev/gen/go: keyward/v1 and buf/validate (protoc-gen-go + protoc-gen-go-grpc)
// Stubs rather than a committed descriptor set: a new user needs runnable code, and the printed proto/ folder
// covers every other language.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeProtoDeps } from "./proto-deps.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The Go module path of the generated Go code, as the protos' go_package options name it. */
export const GO_MODULE = "keyward.dev/gen/go";
// proto3 `optional` is accepted without flags from protoc 3.15 on.
const MIN_PROTOC = [3, 15];

const ours = () => readdirSync(join(root, "proto/keyward/v1")).filter((f) => f.endsWith(".proto")).map((f) => `keyward/v1/${f}`);
const pythonDeps = ["buf/validate/validate.proto", "google/api/annotations.proto", "google/api/http.proto", "google/rpc/status.proto", "google/rpc/error_details.proto"];

function run(command, args) {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const detail = error.code === "ENOENT" ? "not found on PATH" : (error.stderr || error.message).trim();
    throw new Error(`${command}: ${detail}`);
  }
}

function checkProtoc(protoc) {
  const version = run(protoc, ["--version"]).trim();
  const [major, minor] = (version.match(/(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  // protoc 21+ reports "libprotoc 21.x"/"25.x": the 3.x line was renamed, so any major > 3 is newer.
  if (!(major > MIN_PROTOC[0] || (major === MIN_PROTOC[0] && minor >= MIN_PROTOC[1]))) {
    throw new Error(`${protoc} is "${version}"; proto3 optional needs protoc >= ${MIN_PROTOC.join(".")} (Debian 12: apt install protobuf-compiler)`);
  }
}

/** Writes proto/ under `out`: Keyward's protos plus every third-party file they import. */
function writeProtos(out) {
  writeProtoDeps(out);
  cpSync(join(root, "proto/keyward"), join(out, "keyward"), { recursive: true });
}

/**
 * Python stubs. grpc/health/v1/health.proto is compiled as grpc_health/v1/health.proto (same proto package
 * grpc.health.v1): a generated top-level `grpc` package would shadow grpcio's `grpc` module, and `grpc_health.v1`
 * is the module path grpcio-health-checking uses, so code written against that package runs unchanged.
 */
function generatePython({ protos, out, protoc }) {
  const plugin = process.env.GRPC_PYTHON_PLUGIN ?? "grpc_python_plugin";
  const health = mkdtempSync(join(tmpdir(), "keyward-health-"));
  try {
    mkdirSync(join(health, "grpc_health/v1"), { recursive: true });
    cpSync(join(protos, "grpc/health/v1/health.proto"), join(health, "grpc_health/v1/health.proto"));
    mkdirSync(out, { recursive: true });
    run(protoc, [
      `-I${protos}`, `-I${health}`, `--python_out=${out}`, `--pyi_out=${out}`, `--grpc_python_out=${out}`,
      `--plugin=protoc-gen-grpc_python=${resolvePlugin(plugin)}`, ...ours(), ...pythonDeps, "grpc_health/v1/health.proto",
    ]);
  } finally {
    rmSync(health, { recursive: true, force: true });
  }
}

/**
 * Go stubs as one module (GO_MODULE). buf/validate is generated into it too (its upstream Go package lives on the
 * BSR, unreachable offline); google/api comes from google.golang.org/genproto and grpc/health from grpc-go itself.
 */
function generateGo({ protos, out, protoc }) {
  mkdirSync(out, { recursive: true });
  const validate = `Mbuf/validate/validate.proto=${GO_MODULE}/buf/validate;validate`;
  run(protoc, [
    `-I${protos}`,
    `--go_out=${out}`, `--go_opt=module=${GO_MODULE}`, `--go_opt=${validate}`,
    `--go-grpc_out=${out}`, `--go-grpc_opt=module=${GO_MODULE}`, `--go-grpc_opt=${validate}`,
    ...ours(), "buf/validate/validate.proto",
  ]);
  writeFileSync(join(out, "go.mod"), `module ${GO_MODULE}\n\ngo 1.19\n`);
}

// protoc's --plugin needs a path; a bare name is looked up on PATH (names only: it goes through the shell).
function resolvePlugin(name) {
  if (name.includes("/")) return name;
  if (!/^[\w.-]+$/.test(name)) throw new Error(`not a program name: ${JSON.stringify(name)}`);
  return run("sh", ["-c", `command -v ${name} || echo ${name}`]).trim();
}

/**
 * Generates client material into `out` (replacing it): proto/ always, then python/ and go/ as `languages` asks.
 * Throws with the tool's message when protoc or a plugin is missing or too old.
 */
export function generateClients({ out, languages = ["python", "go"] }) {
  const protoc = process.env.PROTOC ?? "protoc";
  checkProtoc(protoc);
  rmSync(out, { recursive: true, force: true });
  const protos = join(out, "proto");
  writeProtos(protos);
  if (languages.includes("python")) generatePython({ protos, out: join(out, "python"), protoc });
  if (languages.includes("go")) generateGo({ protos, out: join(out, "go"), protoc });
}

function parseArgs(argv) {
  const options = { out: join(root, "dist/clients"), languages: ["python", "go"] };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === "--out") options.out = resolve(argv[i + 1]);
    else if (argv[i] === "--lang") options.languages = argv[i + 1]?.split(",") ?? [];
    else throw new Error(`unknown argument ${argv[i]} (use --out DIR, --lang python,go)`);
  }
  const unknown = options.languages.filter((l) => !["python", "go"].includes(l));
  if (unknown.length || options.languages.length === 0) throw new Error(`--lang takes python, go or python,go (got ${unknown.join(",") || "nothing"})`);
  return options;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const options = parseArgs(process.argv.slice(2));
    generateClients(options);
    console.log(`client stubs written to ${options.out} (${["proto", ...options.languages].join(", ")})`);
  } catch (error) {
    console.error(`generate:clients: ${error.message}`);
    process.exit(1);
  }
}
