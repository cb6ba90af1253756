import { describe, expect, it } from "vitest";
import { allocationsByFunction, type SamplingProfileNode } from "./alloc.js";

const node = (functionName: string, url: string, lineNumber: number, selfSize: number, children: SamplingProfileNode[] = []): SamplingProfileNode => ({
  callFrame: { functionName, url, lineNumber }, selfSize, children,
});

describe("allocationsByFunction", () => {
  it("sums a function's self size over every path that reaches it, per request, most first (ties by name)", () => {
    const head = node("(root)", "", -1, 0, [
      node("handle", "file:///repo/.cache/server-1/main.mjs", 9, 3_000, [
        node("verify", "file:///repo/.cache/server-1/main.mjs", 99, 5_000),
        node("", "file:///repo/.cache/server-1/main.mjs", 4, 1_000),
      ]),
      node("processTicksAndRejections", "node:internal/process/task_queues", 94, 0, [
        node("verify", "file:///repo/.cache/server-1/main.mjs", 99, 3_000),
        node("Map", "", -1, 8_000),
      ]),
    ]);
    const { total, rows } = allocationsByFunction(head, 10);
    expect(total).toBe(2_000);
    expect(rows).toEqual([
      { site: "Map (native)", bytesPerRequest: 800, share: 0.4 },
      { site: "verify main.mjs:100", bytesPerRequest: 800, share: 0.4 },
      { site: "handle main.mjs:10", bytesPerRequest: 300, share: 0.15 },
      { site: "(anonymous) main.mjs:5", bytesPerRequest: 100, share: 0.05 },
    ]);
  });

  it("answers nothing for an empty profile", () => {
    expect(allocationsByFunction(node("(root)", "", -1, 0), 5)).toEqual({ total: 0, rows: [] });
  });
});
