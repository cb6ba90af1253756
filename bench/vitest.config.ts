// The bench's own unit tests (parsing, framing): `npx vitest run --config bench/vitest.config.ts`.
// Kept apart from the root config, which collects test/** and starts a redis-server the bench does not need.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  cacheDir: fileURLToPath(new URL("../node_modules/.vite", import.meta.url)),
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["**/*.test.ts"],
  },
});
