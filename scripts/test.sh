#!/usr/bin/env bash
# The one command that runs every test: `npm test` (or `bash scripts/test.sh [vitest args...]`).
# Works on a fresh Debian machine with only Node 20: installs node_modules and the Debian packages the suites
# need (redis-server, python3-grpcio, protoc, Go with its gRPC libraries, chromium, patch) when missing.
# Steps: dependencies -> Debian packages -> the test passes in two lanes at once: vitest (Node suite) then deno e2e,
# beside e2e on MongoDB documents then vitest on Node 24 (section 3 says why). Every pass runs even when another
# failed, so one run shows all failures; the exit code is non-zero if any failed.
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

# --- 3. the test passes ---------------------------------------------------------------------------------------
# Every pass runs vitest on one worker; the Node passes with one module graph per worker (isolate: false): loading the
# modules took half of an api file's time, and 2 workers gain nothing on 2 CPUs (measured: 78 api files 71 s
# isolated, 21 s shared, 21 s shared on 2 workers). The Deno pass keeps a graph per file (vitest.deno.config.ts says why). Each pass writes vitest's JSON report beside its console output;
# the closing line sums them, the phase table times them.
reports=$(mktemp -d -t keyward-vitest-XXXXXX)
trap 'rm -rf "$reports"' EXIT
# run_phase NAME REPORT COMMAND...: runs one pass, records its wall time (REPORT.time) and, when it failed, its
# name (REPORT.failed): files, because the passes of a full run go in two lanes at once (below).
run_phase() {
  local name=$1 report=$2 started=$SECONDS
  shift 2
  say "$name: $*"
  "$@" --reporter=default --reporter=json --outputFile.json="$reports/$report.json" || echo "$name" >"$reports/$report.failed"
  printf '%-28s %5d s\n' "$name" $((SECONDS - started)) >"$reports/$report.time"
}
# node24 COMMAND...: runs COMMAND with the Node 24 LTS binary of the npm registry's `node` package (npx caches it after
# the first run) first on PATH, so the workers (process.execPath) and every `node`/`npm`/`npx` a test starts run on
# Node 24 too. Not inside `npm exec` itself: the npm_config_* it sets would make each nested npx fetch node@24 again.
node24() {
  local bin
  bin=$(npm exec --yes --package=node@24 -- node -p process.execPath) || { echo "node@24 from the npm registry failed" >&2; return 1; }
  PATH="$(dirname "$bin"):$PATH" "$@"
}

if (( $# )); then
  # A filtered run (`bash scripts/test.sh test/api/keys.getKey`): the Node pass alone, on the machine's Node.
  run_phase "vitest (Node suite)" node npx vitest run "$@"
  say "filtered run: the MongoDB, Deno and Node 24 passes are skipped"
else
  # Two lanes at once, one per CPU, each pass on one worker: the machine's Node then Deno in the foreground, the
  # MongoDB pass then Node 24 in the background (its console output is shown when it ends); measured balanced (under
  # load: 944 + 378 s against 524 + 765 s). Nothing is sampled: every pass runs its whole file set, except that the
  # MongoDB pass skips the 413 refusals, which the transport makes before any store is touched (test/support/too-large.ts).
  # - MongoDB documents (vitest.mongo-e2e.config.ts): the api and sdk files again, every server on a fresh database
  #   of the wire emulator (test/setup/mongo.ts: MONGODB_URL when set, else ../shared/mongo-emulator/run.sh; CI=1 or
  #   KEYWARD_REQUIRE_MONGO=1 makes a missing MongoDB a failure instead of skipped cases).
  # - Deno (vitest.deno.config.ts): the api, sdk and runtime files with Deno running vitest, its workers and so the
  #   server under test.
  # - Node 24 (vitest.config.ts): the whole Node suite once more on the newest LTS; Node 20 is past end of life but
  #   is what this machine kind has, so `npm ci && npm start` must keep working on it.
  # Both lanes start the MongoDB wire emulator at once, and its first start on a machine builds it: two builds would
  # collide, so one start (and stop) comes first. A missing emulator is left for the passes to report.
  node --input-type=module -e 'import { findMongoEmulator, startMongoEmulator } from "./scripts/mongo-emulator.mjs";
    if (findMongoEmulator()) await (await startMongoEmulator()).stop();' || true
  # Without MONGODB_URL and without the emulator (a clone with no shared/ beside it) the MongoDB pass cannot run: it
  # is skipped with a notice, as the Mongo cases of the other passes are; under CI or KEYWARD_REQUIRE_MONGO it fails.
  mongo_pass=(run_phase "e2e on MongoDB documents" mongo npx vitest run --config vitest.mongo-e2e.config.ts)
  if [[ -z ${MONGODB_URL:-} && -z ${CI:-} && -z ${KEYWARD_REQUIRE_MONGO:-} ]] &&
    ! node --input-type=module -e 'import { findMongoEmulator } from "./scripts/mongo-emulator.mjs"; process.exit(findMongoEmulator() ? 0 : 1)'; then
    mongo_pass=(say "MongoDB pass skipped: MONGODB_URL is unset and no emulator was found (set KEYWARD_MONGO_EMULATOR to shared/mongo-emulator/run.sh, or put shared/ beside the repository)")
  fi
  # The background lane gets a process group of its own (set -m), so an interrupt or an early exit stops all of it.
  set -m
  (
    "${mongo_pass[@]}"
    KEYWARD_EXPECT_NODE_MAJOR=24 run_phase "vitest on Node 24" node24 node24 node node_modules/vitest/vitest.mjs run
  ) >"$reports/lane.log" 2>&1 &
  lane=$!
  set +m
  trap 'kill -- -"$lane" 2>/dev/null; rm -rf "$reports"' EXIT
  trap 'exit 130' INT TERM
  run_phase "vitest (Node suite)" node npx vitest run
  run_phase "deno e2e" deno npm run -s test:deno --
  say "waiting for the MongoDB and Node 24 passes (their output follows)"
  wait "$lane"
  cat "$reports/lane.log"
fi

# --- summary -------------------------------------------------------------------------------------------------
say "time per phase (the two lanes run at once: the total is the wall time)"
for phase in node deno mongo node24; do
  [[ -f $reports/$phase.time ]] && printf '  %s' "$(cat "$reports/$phase.time")" && echo
  [[ -f $reports/$phase.failed ]] && failed+=("$(cat "$reports/$phase.failed")")
done
printf '  %-28s %5d s\n' "total (wall, with set-up)" "$SECONDS"
if (( ${#failed[@]} )); then
  say "FAILED: ${failed[*]}"
else
  say "all test steps passed"
fi
# Last line in the plain 'N passed, N failed' form, counted from the vitest JSON reports of every phase.
node -e '
  const fs = require("node:fs");
  const dir = process.argv[1];
  const runs = fs.readdirSync(dir).filter((f) => f.endsWith(".json") && fs.statSync(`${dir}/${f}`).size > 0)
    .map((f) => ({ phase: f.replace(/\.json$/, ""), ...JSON.parse(fs.readFileSync(`${dir}/${f}`, "utf8")) }));
  const sum = (field) => runs.reduce((n, r) => n + (r[field] ?? 0), 0);
  const skipped = sum("numPendingTests") + sum("numTodoTests");
  // CI keeps only the tail of the log: name each failed test (or failed file without one) with its first lines.
  for (const run of runs) {
    for (const file of run.testResults ?? []) {
      const tests = file.assertionResults.filter((t) => t.status === "failed");
      if (file.status === "failed" && tests.length === 0) tests.push({ fullName: "(file)", failureMessages: [file.message] });
      for (const t of tests) {
        const why = (t.failureMessages ?? []).join("\n").split("\n")
          .filter((line) => !/^\s*at /.test(line) || line.includes("/test/")).slice(0, 4).join("\n    ");
        console.log(`FAILED [${run.phase}] ${file.name.replace(process.cwd() + "/", "")} > ${t.fullName}\n    ${why}`);
      }
    }
  }
  console.log(`vitest: ${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${skipped} skipped`);
' "$reports"
(( ${#failed[@]} == 0 ))
