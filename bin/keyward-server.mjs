#!/usr/bin/env node
// `npm start`: the Keyward server (src/main.ts). On Node from a prebuilt bundle (import-built.mjs: serving within
// a fraction of a second, also right after a crash); Deno runs the TypeScript directly.
if (globalThis.Deno) {
  await import(new URL("../src/main.ts", import.meta.url).href);
} else {
  const { importBuilt } = await import("./import-built.mjs");
  await importBuilt("src/main.ts", "server");
}
