import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The bench's own unit tests (result parsing, framing, medians) too; the load runs themselves are `npm run bench`.
    include: ["test/**/*.test.ts", "bench/**/*.test.ts"],
    // One private redis-server per run; see test/setup/redis.ts.
    // The log-secret check: every log line of the run is searched for every secret the tests saw (test/setup/log-capture.ts).
    globalSetup: ["test/setup/redis.ts", "test/setup/mongo.ts", "test/setup/log-capture.ts"],
    setupFiles: ["test/setup/record-secrets.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 15_000,
    pool: "forks",
    // One module graph per worker, reused by every file: loading the modules was half of an api file's time (78 api
    // files: 71 s isolated, 21 s shared). Safe because no test mocks modules, stubs globals or changes process.env
    // (test/suite-rules.test.ts keeps it so), and every file starts its own servers on their own ports and stores.
    isolate: false,
  },
});
