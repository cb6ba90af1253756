#!/usr/bin/env bash
# The one command that runs every test: `npm test` (or `bash scripts/test.sh [vitest args...]`).
# Works on a fresh Debian machine with only Node 20: installs node_modules and the Debian packages the suites
# need (redis-server, python3-grpcio, protoc, Go with its gRPC libraries, chromium, patch) when missing.
# Steps: dependencies -> Debian packages -> vitest (Node suite) -> e2e on MongoDB documents -> deno e2e. Every step
# runs even when an earlier test step failed, so one run shows all failures; the exit code is non-zero if any failed.
# The end prints each phase's wall time and one 'N passed, N failed' line over all phases.
set -uo pipefail

cd "$(dirname "$0")/.."
say() { printf '\n==> %s\n' "$*"; }
failed=()

# --- 1. node_modules: npm ci when missing or older than package.json / package-lock.json -------------------
# npm writes node_modules/.package-lock.json on every install; it being older than the lockfiles means stale.
stamp=node_modules/.package-lock.json
if [[ ! -d node_modules || ! -f $stamp || package-lock.json -nt $stamp || package.json -nt $stamp ]]; then
  say "node_modules missing or stale: npm ci"
  npm ci --no-audit --no-fund || { echo "npm ci failed" >&2; exit 1; }
else
  say "node_modules up to date (skipping npm ci)"
fi

# --- 2. Debian packages the suites run: redis-server (private instances, never the system service), and for the
# client suites Debian's Python grpcio, protoc with its Python and Go plugins, and Go; `patch` for the mongo
# emulator's first build. One apt-get for all missing.
missing=()
if [[ -n ${REDIS_SERVER_BIN:-} ]]; then
  command -v "$REDIS_SERVER_BIN" >/dev/null || { echo "REDIS_SERVER_BIN=$REDIS_SERVER_BIN not found" >&2; exit 1; }
  say "redis-server: using REDIS_SERVER_BIN=$REDIS_SERVER_BIN"
else
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
fi
# redis-cli builds the test Redis Cluster (scripts/redis-cluster.mjs); Sentinel runs as `redis-server --sentinel`.
command -v "${REDIS_CLI_BIN:-redis-cli}" >/dev/null 2>&1 || missing+=(redis-tools)
/usr/bin/python3 -c 'import grpc, google.protobuf' >/dev/null 2>&1 || missing+=(python3-grpcio python3-protobuf)
command -v protoc >/dev/null 2>&1 || missing+=(protobuf-compiler)
# protoc's well-known types (google/protobuf/*.proto) are only a recommendation of protobuf-compiler.
[[ -f /usr/include/google/protobuf/descriptor.proto ]] || missing+=(libprotobuf-dev)
command -v grpc_python_plugin >/dev/null 2>&1 || missing+=(protobuf-compiler-grpc)
# The Go client example builds offline in GOPATH mode against Debian's Go libraries (test/clients). grpc-go's
# codec needs golang/protobuf 1.5 (the APIv2 wrapper): apt would pick the 1.3 alternative, so it is named here.
for pkg in golang-go protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev \
  golang-google-genproto-dev golang-github-golang-protobuf-1-5-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
# The dashboard's browser suite drives Debian's chromium through playwright-core.
[[ -x ${KEYWARD_CHROMIUM:-/usr/bin/chromium} ]] || missing+=(chromium)
# The mongo wire emulator (../shared/mongo-emulator/run.sh) patches its npm sources once when it is first built.
command -v patch >/dev/null 2>&1 || missing+=(patch)
if (( ${#missing[@]} )); then
  say "installing Debian packages: ${missing[*]}"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  # A service a package's postinst may start is harmless: tests only use their own private servers.
  "${sudo[@]}" apt-get update \
    && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
    || { echo "installing ${missing[*]} failed" >&2; exit 1; }
  command -v redis-server >/dev/null || [[ -n ${REDIS_SERVER_BIN:-} ]] || { echo "redis-server still not on PATH" >&2; exit 1; }
else
  say "Debian packages present (redis-server, python3-grpcio, protoc with its well-known types, grpc_python_plugin, Go and its gRPC libraries, chromium, patch)"
fi

# --- 3. Node suite: vitest (globalSetup starts one private redis-server unless REDIS_URL is given) -----------
# Each step writes vitest's JSON report beside the console one; the closing line sums them, the phase table times them.
reports=$(mktemp -d -t keyward-vitest-XXXXXX)
trap 'rm -rf "$reports"' EXIT
phases=()
# run_phase NAME REPORT COMMAND...: runs one step, records its wall time and whether it failed.
run_phase() {
  local name=$1 report=$2 started=$SECONDS
  shift 2
  say "$name: $*"
  "$@" --reporter=default --reporter=json --outputFile.json="$reports/$report.json" || failed+=("$name")
  phases+=("$(printf '%-28s %5d s' "$name" $((SECONDS - started)))")
}
run_phase "vitest (Node suite)" node npx vitest run "$@"

# --- 3b. the end-to-end suite again on MongoDB documents -----------------------------------------------------------
# test/setup/mongo.ts gives it MONGODB_URL when set (a real server), else starts the wire emulator found beside the
# repository (../shared/mongo-emulator/run.sh; KEYWARD_MONGO_EMULATOR=<run.sh> points elsewhere). Without either the
# Mongo cases skip, saying why; CI=1 or KEYWARD_REQUIRE_MONGO=1 makes a missing MongoDB a failure instead.
# --- 4. deno e2e: the end-to-end suite under Deno (vitest.deno.config.ts) -----------------------------------------
# Both are skipped when vitest was given arguments (a filtered run: `bash scripts/test.sh test/api/keys.getKey`).
if (( $# == 0 )); then
  run_phase "e2e on MongoDB documents" mongo npx vitest run --config vitest.mongo-e2e.config.ts
  run_phase "deno e2e" deno npm run -s test:deno --
else
  say "filtered run: the MongoDB and Deno passes are skipped"
fi

# --- summary -------------------------------------------------------------------------------------------------
say "time per phase"
printf '  %s\n' "${phases[@]}"
if (( ${#failed[@]} )); then
  say "FAILED: ${failed[*]}"
else
  say "all test steps passed"
fi
# Last line in the plain 'N passed, N failed' form, counted from the vitest JSON reports of every phase.
node -e '
  const fs = require("node:fs");
  const dir = process.argv[1];
  const runs = fs.readdirSync(dir).map((f) => `${dir}/${f}`).filter((f) => fs.statSync(f).size > 0)
    .map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const sum = (field) => runs.reduce((n, r) => n + (r[field] ?? 0), 0);
  const skipped = sum("numPendingTests") + sum("numTodoTests");
  console.log(`vitest: ${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${skipped} skipped`);
' "$reports"
(( ${#failed[@]} == 0 ))
