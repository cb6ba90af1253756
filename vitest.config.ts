import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One private redis-server per run; see test/setup/redis.ts.
    globalSetup: ["test/setup/redis.ts", "test/setup/mongo.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 15_000,
    pool: "forks",
  },
});
