import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gcBetween, summariseGcTrace } from "./gc-trace.js";

// Lines captured from `node --trace-gc-nvp --import tsx src/main.ts` under h2load: Keyward's startup and request log
// lines, two scavenges and a mark-compact; the last scavenge has a request line between its prefix and its body, as
// happens when V8's two writes of one record straddle the application's write.
const fixture = readFileSync(new URL("./gc-trace.fixture.txt", import.meta.url), "utf8");
const dir = mkdtempSync(join(tmpdir(), "gc-trace-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("GC trace", () => {
  it("sums pause and promoted bytes of every record among the application's log lines", () => {
    const totals = summariseGcTrace(fixture);
    expect(totals.count).toBe(3);
    expect(totals.pauseMs).toBeCloseTo(0.4 + 22.1 + 4.6, 6);
    expect(totals.maxPauseMs).toBe(22.1); // the mark-compact
    expect(totals.promotedBytes).toBe(122_840 + 2_464_264 + 323_856);
  });

  it("does not take nodes_promoted for promoted, and finds nothing in a log without records", () => {
    expect(summariseGcTrace("pause=1.0 mutator=2.0 gc=s nodes_promoted=99 \n")).toEqual({ count: 0, pauseMs: 0, maxPauseMs: 0, promotedBytes: 0 });
    expect(summariseGcTrace(fixture.split("\n").filter((l) => l.startsWith("{")).join("\n"))).toEqual({ count: 0, pauseMs: 0, maxPauseMs: 0, promotedBytes: 0 });
  });

  it("reads only the records written between two offsets of the file, chunk edges included", () => {
    const path = join(dir, "server.log");
    const before = "x".repeat(5 << 20) + "\n"; // past one 4 MiB read chunk, so the slice spans two reads
    writeFileSync(path, fixture + before + fixture + fixture);
    const size = Buffer.byteLength(fixture); // offsets are bytes; Keyward's startup line has a non-ASCII dash
    const from = size + before.length;
    expect(gcBetween(path, from, from + size)).toEqual(summariseGcTrace(fixture));
    expect(gcBetween(path, 0, from + 2 * size)).toEqual({
      count: 9, pauseMs: expect.closeTo(3 * 27.1, 6), maxPauseMs: 22.1, promotedBytes: 3 * 2_910_960,
    });
    expect(gcBetween(path, from, from)).toEqual({ count: 0, pauseMs: 0, maxPauseMs: 0, promotedBytes: 0 });
  });
});
