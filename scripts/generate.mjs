#!/usr/bin/env node
// `npm run generate`: assemble third-party .proto files from installed npm packages into a git-ignored
// folder, then run buf with the local protoc-gen-es plugin. Works offline.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeProtoDeps } from "./proto-deps.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const deps = join(root, ".proto-deps");

rmSync(deps, { recursive: true, force: true });
writeProtoDeps(deps);

rmSync(join(root, "gen"), { recursive: true, force: true });
const buf = join(root, "node_modules/.bin/buf");
execFileSync(buf, ["generate", "--exclude-path", ".proto-deps/buf"], { cwd: root, stdio: "inherit" });
execFileSync(buf, ["lint"], { cwd: root, stdio: "inherit" });
// The OpenAPI documents read the generated descriptors, so they come last; the image gives them the proto's comments.
const image = join(deps, "image.binpb");
execFileSync(buf, ["build", "-o", image], { cwd: root, stdio: "inherit" });
execFileSync(join(root, "node_modules/.bin/tsx"), ["scripts/openapi.ts", image], { cwd: root, stdio: "inherit" });
