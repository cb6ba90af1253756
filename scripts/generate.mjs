#!/usr/bin/env node
// `npm run generate`: assemble third-party .proto files from installed npm packages into a git-ignored
// folder, then run buf with the local protoc-gen-es plugin. Works offline.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { file_buf_validate_validate } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { printSchemaOnlyProto } from "./print-proto.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const deps = join(root, ".proto-deps");
const require = createRequire(import.meta.url);
const packageDir = (name) => dirname(require.resolve(`${name}/package.json`));

rmSync(deps, { recursive: true, force: true });
for (const file of ["annotations.proto", "http.proto"]) {
  mkdirSync(join(deps, "google/api"), { recursive: true });
  cpSync(join(packageDir("google-proto-files"), "google/api", file), join(deps, "google/api", file));
}
// google.rpc.Status and BadRequest: the rich error details gRPC and Connect errors carry.
for (const file of ["status.proto", "error_details.proto"]) {
  mkdirSync(join(deps, "google/rpc"), { recursive: true });
  cpSync(join(packageDir("google-proto-files"), "google/rpc", file), join(deps, "google/rpc", file));
}
mkdirSync(join(deps, "grpc/health/v1"), { recursive: true });
cpSync(join(packageDir("grpc-health-check"), "proto/health/v1/health.proto"), join(deps, "grpc/health/v1/health.proto"));
// protovalidate's runtime ships its schema only as an embedded descriptor: print it back as a .proto.
mkdirSync(join(deps, "buf/validate"), { recursive: true });
writeFileSync(join(deps, "buf/validate/validate.proto"), printSchemaOnlyProto(file_buf_validate_validate.proto));

rmSync(join(root, "gen"), { recursive: true, force: true });
const buf = join(root, "node_modules/.bin/buf");
execFileSync(buf, ["generate", "--exclude-path", ".proto-deps/buf"], { cwd: root, stdio: "inherit" });
execFileSync(buf, ["lint"], { cwd: root, stdio: "inherit" });
