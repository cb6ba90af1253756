#!/usr/bin/env node
// `keyward` / `npx keyward`: the operator CLI (src/cli). Node 20 cannot run TypeScript itself, so tsx's loader is
// registered in this process first, with the repository's tsconfig whatever the working directory is. Deno runs
// the TypeScript directly.
const main = new URL("../src/cli/main.ts", import.meta.url);
if (!globalThis.Deno) {
  const { register } = await import("tsx/esm/api");
  const { fileURLToPath } = await import("node:url");
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
}
await import(main.href);
