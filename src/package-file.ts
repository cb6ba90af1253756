import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * The absolute path of a file that ships with Keyward, given from the package root: `gen/openapi/v1.json`,
 * `web/main.tsx`, `src/store/redis/consume.lua`. Not relative to the calling module: on Node the server runs from
 * one bundle of all of src/ (bin/import-built.mjs, written to `.cache/`), where every module's `import.meta.url`
 * is the bundle's. The root is the nearest directory above this module (or the bundle) whose package.json is
 * Keyward's, found on the first call; the same from source (tsx, Deno, vitest) and from the bundle.
 */
export function packageFile(path: string): string {
  root ??= findRoot(dirname(fileURLToPath(import.meta.url)));
  return join(root, path);
}

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "keyward") return dir;
    if (dirname(dir) === dir) throw new Error(`no Keyward package.json above ${from}`);
  }
}
