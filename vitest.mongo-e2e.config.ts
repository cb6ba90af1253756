import { defineConfig } from "vitest/config";

// The end-to-end suite again, on MongoDB documents: every server under test gets a fresh database on the test
// MongoDB (MONGODB_URL, else the wire emulator started by test/setup/mongo.ts). Run by scripts/test.sh.
export default defineConfig({
  test: {
    name: "e2e-mongo",
    include: ["test/api/**/*.test.ts", "test/sdk/**/*.test.ts"],
    // The log-secret check runs on this run's logs too (test/setup/log-capture.ts).
    globalSetup: ["test/setup/redis.ts", "test/setup/mongo.ts", "test/setup/log-capture.ts"],
    setupFiles: ["test/setup/record-secrets.ts"],
    env: { KEYWARD_TEST_DOCUMENTS: "mongo" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 15_000,
    pool: "forks",
    // One module graph reused across files, as in vitest.config.ts (which says why that is safe).
    isolate: false,
  },
});
