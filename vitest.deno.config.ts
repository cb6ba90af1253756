import { defineConfig } from "vitest/config";

// The end-to-end suite again, with Deno running vitest, its workers and so the server under test.
export default defineConfig({
  test: {
    include: ["test/api/**/*.test.ts", "test/sdk/**/*.test.ts", "test/runtime/**/*.test.ts"],
    // The log-secret check: every log line of the run is searched for every secret the tests saw (test/setup/log-capture.ts).
    globalSetup: ["test/setup/redis.ts", "test/setup/log-capture.ts"],
    setupFiles: ["test/setup/record-secrets.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Each file in a fresh module graph, unlike the Node passes: with one graph reused across files, Deno's
    // node:http compatibility now and then left an HTTP/1.1 Connect or gRPC-Web call hanging until the test's 30 s
    // timeout (three such cases in three CI runs, on a quiet machine too; none with isolation). Costs ~100 s of the
    // pass, which runs beside the MongoDB and Node 24 passes anyway.
    isolate: true,
  },
});
