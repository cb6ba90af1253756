#!/usr/bin/env node
// `keyward` / `npx keyward`: the operator CLI (src/cli). Node 20 cannot run TypeScript itself: on Node the CLI
// runs from a prebuilt bundle (import-built.mjs), built on first use whatever the working directory is. Deno runs
// the TypeScript directly.
if (globalThis.Deno) {
  await import(new URL("../src/cli/main.ts", import.meta.url).href);
} else {
  const { importBuilt } = await import("./import-built.mjs");
  await importBuilt("src/cli/main.ts", "cli");
}
