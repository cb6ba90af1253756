// Runs one of Keyward's TypeScript entries on Node from a prebuilt bundle instead of through tsx. tsx transforms and
// loads some two hundred modules through loader hooks on every start (1 to 3 s on a busy 2-core machine); a
// supervisor restarting the server after a crash needs it serving within half a second. So the entry is bundled
// once by esbuild into .cache/ (git-ignored), keyed by the content of everything that goes into the bundle, and
// every later start imports that bundle: one module, plus a chunk per module src/ imports dynamically. Plain
// JavaScript: this runs before anything can load TypeScript.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CACHE = join(ROOT, ".cache");
// What the bundle is made of: the sources (gen/ holds generated modules src/ imports), the compiler settings, this
// file's build options, and the installed packages (npm's record of node_modules: ES-module packages are bundled,
// and the lock pins esbuild's version). Files src/ reads at run time (gen/openapi/*.json, *.lua) are hashed too:
// harmless.
const INPUT_DIRS = ["src", "gen"];
const INPUT_FILES = ["package.json", "package-lock.json", "node_modules/.package-lock.json", "tsconfig.json", "bin/import-built.mjs"];
// Bundles of older sources are removed once this old, so that a start racing an edit never loses the file it
// is about to import (see importBuilt) while .cache/ does not grow with every edit.
const STALE_MS = 10 * 60 * 1000;

/**
 * Imports `entry` (a path from the repository root, e.g. `src/main.ts`), that is runs it, from its bundle in
 * `.cache/<name>-<hash>/`, building that first when no bundle of the current sources exists. The hash covers the
 * content of every input, so a `git pull` or an edit is never run stale. Concurrent starts may both build; each
 * builds into a directory of its own and renames it into place, so none ever imports a half-written bundle.
 * Where `.cache/` cannot be written (a read-only install), runs the source through tsx as before.
 *
 * Stack traces name lines of the bundle, which is not minified and marks where each src/ module begins. Source maps
 * are written beside it; Node applies them with `--enable-source-maps` (NODE_OPTIONS), at some 40 ms per start:
 * not by default, where every restart counts.
 */
export async function importBuilt(entry, name) {
  for (let attempt = 1; ; attempt++) {
    const dir = join(CACHE, `${name}-${inputHash()}`);
    if (!existsSync(dir)) {
      try {
        await build(entry, name, dir);
      } catch (error) {
        if (!["EACCES", "EPERM", "EROFS"].includes(error?.code)) throw error;
        return importThroughTsx(entry);
      }
    }
    const main = join(dir, "main.mjs");
    try {
      return await import(pathToFileURL(main).href);
    } catch (error) {
      // Only when the sources changed since the hash was taken: another start removed this (stale) bundle.
      if (attempt === 1 && error?.code === "ERR_MODULE_NOT_FOUND" && !existsSync(main)) continue;
      throw error;
    }
  }
}

function inputHash() {
  const hash = createHash("sha256");
  const add = (path) => {
    const file = join(ROOT, path);
    // node_modules/.package-lock.json is missing where npm did not install the packages.
    hash.update(`${path}\0`).update(existsSync(file) ? readFileSync(file) : "(none)").update("\0");
  };
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) add(path);
    }
  };
  INPUT_DIRS.forEach(walk);
  INPUT_FILES.forEach(add);
  return hash.digest("hex").slice(0, 16);
}

async function build(entry, name, dir) {
  const esbuild = await import("esbuild");
  const aside = `${dir}.${process.pid}.tmp`;
  rmSync(aside, { recursive: true, force: true });
  // One level at a time: where .cache/ cannot be written, this fails with EROFS or EACCES (a recursive mkdir
  // would say ENOENT).
  for (const path of [CACHE, aside]) {
    try {
      mkdirSync(path);
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
  }
  try {
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { main: join(ROOT, entry) },
      outdir: aside,
      outExtension: { ".js": ".mjs" },
      chunkNames: "chunks/[name]-[hash]",
      bundle: true,
      // Modules src/ imports dynamically stay separate chunks, loaded when asked for as from source: the MongoDB and
      // Redis adapters, and with them the mongodb and ioredis packages, only when configured.
      splitting: true,
      platform: "node",
      format: "esm",
      target: "node20",
      plugins: [commonJsExternal],
      sourcemap: true,
      sourcesContent: false,
      logLevel: "warning",
    });
  } catch (error) {
    rmSync(aside, { recursive: true, force: true });
    throw error;
  } finally {
    await esbuild.stop(); // its service process would otherwise live as long as the server
  }
  try {
    renameSync(aside, dir);
  } catch (error) {
    // A concurrent start put the same bundle in place first.
    rmSync(aside, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  removeStale(name, dir);
}

function removeStale(name, current) {
  const now = Date.now();
  for (const entry of readdirSync(CACHE)) {
    const path = join(CACHE, entry);
    if (!entry.startsWith(`${name}-`) || path.startsWith(current)) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent start.
    }
  }
}

/**
 * Bundles ES-module packages (@bufbuild/*, @connectrpc/*): Node loads each of their many files separately, which
 * costs more than a third of a start's CPU. CommonJS packages (pino, prom-client, mongodb, ioredis, esbuild) stay
 * external, imported from node_modules at run time: bundled into an ES module they would need `require` shims, and
 * pino loads its transports by file path.
 */
const commonJsExternal = {
  name: "commonjs-external",
  setup(build) {
    const moduleType = new Map();
    build.onResolve({ filter: /^[^./]/ }, ({ path, resolveDir }) => {
      if (isBuiltin(path)) return { path, external: true };
      const name = path.split("/").slice(0, path.startsWith("@") ? 2 : 1).join("/");
      const key = `${resolveDir}\0${name}`;
      if (!moduleType.has(key)) moduleType.set(key, isModulePackage(name, resolveDir));
      return moduleType.get(key) ? undefined : { path, external: true };
    });
  },
};

function isModulePackage(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, "node_modules", name, "package.json");
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")).type === "module";
    if (dirname(dir) === dir) return false;
  }
}

async function importThroughTsx(entry) {
  const { register } = await import("tsx/esm/api");
  register({ tsconfig: join(ROOT, "tsconfig.json") });
  return import(pathToFileURL(join(ROOT, entry)).href);
}
