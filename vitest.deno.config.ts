import { defineConfig } from "vitest/config";

// The end-to-end suite again, with Deno running vitest, its workers and so the server under test.
export default defineConfig({
  test: {
    include: ["test/api/**/*.test.ts", "test/sdk/**/*.test.ts", "test/runtime/**/*.test.ts"],
    globalSetup: ["test/setup/redis.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
