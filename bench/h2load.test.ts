import { describe, expect, it } from "vitest";
import { parseH2loadSummary, percentile, perConnectionRps, summariseRequestLog } from "./h2load.js";
import { grpcFrame } from "./targets.js";

// Tail of a real h2load 1.52.0 run.
const output = `finished in 4.00s, 11931.33 req/s, 2.53MB/s
requests: 35794 total, 35794 started, 35790 done, 35794 succeeded, 0 failed, 3 errored, 1 timeout
status codes: 35700 2xx, 1 3xx, 90 4xx, 3 5xx
traffic: 7.58MB (7946268) total, 4.85MB (5080916) headers (space savings 0.00%), 2.80MB (2934667) data
                     min         max         mean         sd        +/- sd
time for request:      654us     18.44ms      4.19ms      1.37ms    77.89%
`;

describe("h2load results", () => {
  it("reads req/s, counts and status classes from the summary", () => {
    expect(parseH2loadSummary(output)).toEqual({
      reqPerSec: 11931.33,
      total: 35794,
      done: 35790,
      errored: 3,
      timeout: 1,
      status: { "2xx": 35700, "3xx": 1, "4xx": 90, "5xx": 3 },
    });
  });

  it("throws on output without a summary", () => {
    expect(() => parseH2loadSummary("connect: Connection refused\n")).toThrow(/unexpected h2load output/);
  });

  it("computes nearest-rank percentiles in ms over every logged row, boundary rows (status 0) included", () => {
    const rows = Array.from({ length: 100 }, (_, i) => `17953${i}\t${i === 0 ? 0 : i === 1 ? 404 : 200}\t${(i + 1) * 1000}`);
    const summary = summariseRequestLog(rows.reverse().join("\n") + "\n");
    expect(summary).toEqual({ count: 100, non2xx: 1, p50Ms: 50, p99Ms: 99, meanMs: 50.5 });
  });

  it("spreads a fixed offered load over the connections, at least 1 req/s each", () => {
    expect(perConnectionRps(20_000, 50)).toBe(400);
    expect(perConnectionRps(10_049, 50)).toBe(201);
    expect(perConnectionRps(10, 50)).toBe(1);
  });

  it("takes the smallest value with at least p% at or below it", () => {
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile([1, 2, 3], 99)).toBe(3);
    expect(percentile([7], 1)).toBe(7);
  });
});

describe("grpcFrame", () => {
  it("prefixes a flag byte 0 and the big-endian length", () => {
    expect([...grpcFrame(new Uint8Array([10, 2, 104, 105]))]).toEqual([0, 0, 0, 0, 4, 10, 2, 104, 105]);
  });
});
