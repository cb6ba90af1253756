import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkImports, findCycles, houseLayers, readImportGraph, type ImportGraph } from "./import-graph.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe("the import picture of src/", () => {
  const graph = readImportGraph(root, "src");

  it("reads the real source tree (a guard against an empty graph passing)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("src/main.ts")).toContain("src/app.ts");
  });

  it("places every file of src/ on a floor", () => {
    expect(checkImports(graph, houseLayers).unplaced).toEqual([]);
  });

  it("has no import running upward (domain <- store <- services <- transport <- app)", () => {
    expect(checkImports(graph, houseLayers).upward).toEqual([]);
  });

  it("has no import cycle", () => {
    expect(checkImports(graph, houseLayers).cycles).toEqual([]);
  });
});

describe("checkImports", () => {
  it("reports a store file importing a service as running upward", () => {
    const problems = checkImports(
      graphOf({
        "src/store/redis/invalidation-bus.ts": ["src/services/key-cache.ts", "src/domain/ids.ts"],
        "src/services/key-cache.ts": ["src/store/ports/keys.ts"],
        "src/store/ports/keys.ts": [],
        "src/domain/ids.ts": [],
      }),
      houseLayers,
    );
    expect(problems.upward).toEqual(["src/store/redis/invalidation-bus.ts -> src/services/key-cache.ts (store -> services)"]);
    expect(problems.unplaced).toEqual([]);
  });

  it("reports imports between two layers of one rank, and domain importing gen", () => {
    const problems = checkImports(
      graphOf({
        "src/services/a.ts": ["src/observability/metrics.ts"],
        "src/observability/metrics.ts": [],
        "src/domain/x.ts": ["gen/keyward/v1/keys_pb.ts"],
      }),
      houseLayers,
    );
    expect(problems.upward).toEqual([
      "src/domain/x.ts -> gen/keyward/v1/keys_pb.ts (domain -> gen)",
      "src/services/a.ts -> src/observability/metrics.ts (services -> observability)",
    ]);
  });

  it("accepts imports running down or within a layer", () => {
    const problems = checkImports(
      graphOf({
        "src/app.ts": ["src/transport/server.ts", "src/services/keys/keys-service.ts", "src/domain/ids.ts"],
        "src/transport/server.ts": ["src/transport/pipeline.ts", "src/observability/metrics.ts"],
        "src/transport/pipeline.ts": [],
        "src/observability/metrics.ts": ["src/store/ports/keys.ts"],
        "src/services/keys/keys-service.ts": ["src/store/ports/keys.ts", "gen/keyward/v1/keys_pb.ts"],
        "src/store/ports/keys.ts": ["src/domain/ids.ts", "src/turn-end.ts"],
        "src/domain/ids.ts": [],
        "src/turn-end.ts": [],
      }),
      houseLayers,
    );
    expect(problems).toEqual({ unplaced: [], upward: [], cycles: [] });
  });

  it("names a file no layer claims", () => {
    expect(checkImports(graphOf({ "src/webhooks/send.ts": [] }), houseLayers).unplaced).toEqual(["src/webhooks/send.ts"]);
  });
});

describe("findCycles", () => {
  it("finds a three-file circle within one layer, and only it", () => {
    const cycles = findCycles(
      graphOf({
        "v1-dialect.ts": ["ratelimit-dialect.ts", "errors.ts"],
        "ratelimit-dialect.ts": ["v1-rbac-dialect.ts"],
        "v1-rbac-dialect.ts": ["v1-dialect.ts", "errors.ts"],
        "errors.ts": [],
      }),
    );
    expect(cycles).toEqual([["ratelimit-dialect.ts", "v1-dialect.ts", "v1-rbac-dialect.ts"]]);
  });

  it("finds a file importing itself and two separate cycles", () => {
    const cycles = findCycles(graphOf({ a: ["a"], b: ["c"], c: ["b"], d: ["b"] }));
    expect(cycles).toEqual([["a"], ["b", "c"]]);
  });

  it("finds none in a diamond", () => {
    expect(findCycles(graphOf({ a: ["b", "c"], b: ["d"], c: ["d"], d: [] }))).toEqual([]);
  });
});
