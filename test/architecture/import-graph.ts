import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";

/** Module graph: repository-relative file path (`src/app.ts`) -> the repository-relative files it imports. */
export type ImportGraph = Map<string, string[]>;

/**
 * A floor of the house. A file may import files of its own layer and of layers with a lower rank; two layers of
 * one rank may not import each other (domain must not lean on gen, services not on observability).
 */
export interface Layer {
  name: string;
  rank: number;
  /** Repository-relative path prefixes (folders end in `/`) or exact files. */
  paths: string[];
}

/** The layering DESIGN.md and STYLE.md lay out: main -> app -> transport -> services -> store -> domain. */
export const houseLayers: Layer[] = [
  { name: "domain", rank: 0, paths: ["src/domain/"] },
  // Leaf helpers with no imports of their own that every floor may use.
  { name: "base", rank: 0, paths: ["src/turn-end.ts", "src/package-file.ts"] },
  { name: "gen", rank: 1, paths: ["gen/"] },
  { name: "store", rank: 2, paths: ["src/store/"] },
  { name: "services", rank: 3, paths: ["src/services/"] },
  // Metrics and logging wrap the store ports and are used by the transport.
  { name: "observability", rank: 3, paths: ["src/observability/"] },
  { name: "transport", rank: 4, paths: ["src/transport/"] },
  // Both describe or serve what the transport carries, and are mounted by the app.
  { name: "openapi", rank: 5, paths: ["src/openapi/"] },
  { name: "dashboard", rank: 5, paths: ["src/dashboard/"] },
  {
    name: "app",
    rank: 6,
    paths: ["src/app.ts", "src/main.ts", "src/config.ts", "src/open-stores.ts", "src/bootstrap.ts", "src/heap-tuning.ts", "src/cli/"],
  },
];

/** The layer holding `file`, or undefined when none claims it. */
export function layerOf(file: string, layers: Layer[]): Layer | undefined {
  return layers.find((layer) => layer.paths.some((path) => (path.endsWith("/") ? file.startsWith(path) : file === path)));
}

export interface ImportProblems {
  /** Files no layer claims: a new folder must be given its floor. */
  unplaced: string[];
  /** Imports running upward or sideways across layers, as `from -> to (layer -> layer)`. */
  upward: string[];
  /** Each import cycle as its files, in a stable order. */
  cycles: string[][];
}

/** Checks `graph` against `layers`: every file placed, no import running upward, no cycle. */
export function checkImports(graph: ImportGraph, layers: Layer[]): ImportProblems {
  const unplaced: string[] = [];
  const upward: string[] = [];
  for (const [from, targets] of graph) {
    const own = layerOf(from, layers);
    if (!own) {
      unplaced.push(from);
      continue;
    }
    for (const to of targets) {
      const other = layerOf(to, layers);
      if (!other || other === own) continue;
      if (other.rank >= own.rank) upward.push(`${from} -> ${to} (${own.name} -> ${other.name})`);
    }
  }
  return { unplaced, upward: upward.sort(), cycles: findCycles(graph) };
}

/** The strongly connected components with more than one file (or a file importing itself): Tarjan's algorithm. */
export function findCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        if (!graph.has(to)) continue;
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

/**
 * The relative imports of every TypeScript file under `folder` (static, type-only, re-exports and dynamic
 * `import()` alike: a type import is an arrow in the picture too), paths relative to `root`.
 */
export function readImportGraph(root: string, folder: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of listSources(join(root, folder))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => relative(root, normalize(join(dirname(file), name))).replace(/\.js$/, ".ts"));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

function listSources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return listSources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
