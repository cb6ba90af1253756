import { describe, expect, it } from "vitest";
import { serverProcesses, targets } from "./targets.js";

describe("serverProcesses", () => {
  it("one process per server and HTTP version, in order of first appearance, each with its targets in order", () => {
    const processes = serverProcesses(targets).map((p) => ({ server: p.server, protocols: [...new Set(p.targets.map((t) => t.protocol))] }));
    // No process serves both versions, and none repeats.
    expect(processes.every((p) => p.protocols.length === 1)).toBe(true);
    expect(new Set(processes.map((p) => `${p.server} ${p.protocols[0]}`)).size).toBe(processes.length);
    expect(processes.slice(0, 3)).toEqual([
      { server: "bare", protocols: ["h1"] }, { server: "bare-h2", protocols: ["h2c"] }, { server: "grpc-js peer", protocols: ["h2c"] },
    ]);
    const keyward = serverProcesses(targets).filter((p) => p.server === "keyward");
    expect(keyward.map((p) => p.targets.map((t) => t.name))).toEqual([
      targets.filter((t) => t.server === "keyward" && t.protocol === "h1").map((t) => t.name),
      targets.filter((t) => t.server === "keyward" && t.protocol === "h2c").map((t) => t.name),
    ]);
    // The REST row at a fixed load runs after its own full-load row, in a process that never served HTTP/2.
    const [rest] = keyward;
    const names = rest.targets.map((t) => t.name);
    expect(names.indexOf("REST v2 keys.verifyKey (embedded) @ ½ bare h1 capacity")).toBeGreaterThan(names.indexOf("REST v2 keys.verifyKey (embedded)"));
  });
});
