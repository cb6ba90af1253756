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
    // One module graph reused across files, as in vitest.config.ts (which says why that is safe).
    isolate: false,
  },
});
