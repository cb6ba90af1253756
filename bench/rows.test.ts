import { describe, expect, it } from "vitest";
import { medianOf, medianOfRounds, setRatios, type Row } from "./rows.js";
import { bareH2Name, baselineName } from "./targets.js";

const row = (name: string, reqPerSec: number, extra: Partial<Row> = {}): Row => ({
  name, protocol: "h1", streams: 1, path: "/", requests: reqPerSec * 10, reqPerSec, p50Ms: 1, p99Ms: 2, meanMs: 1.5,
  non2xx: 0, failed: 0, cpuUsPerRequest: 100, ratioToBare: null, ratioToBareH2: null, promotedBytesPerRequest: 500, gcShare: 0.1,
  maxGcPauseMs: 1, ...extra,
});

describe("bench rows", () => {
  it("medianOf: the middle value, the mean of the two middle ones, null when a value is missing", () => {
    expect(medianOf([3, 1, 2])).toBe(2);
    expect(medianOf([4, 1, 3, 2])).toBe(2.5);
    expect(medianOf([1, null, 3])).toBeNull();
    expect(medianOf([])).toBeNull();
  });

  it("setRatios: against the bare handler, and h2c rows against the bare HTTP/2 handler at the same -m", () => {
    const rows = setRatios([
      row(baselineName, 20_000),
      row(`${bareH2Name} -m1`, 10_000, { protocol: "h2c" }),
      row(`${bareH2Name} -m10`, 25_000, { protocol: "h2c", streams: 10 }),
      row("gRPC -m10", 5_000, { protocol: "h2c", streams: 10 }),
      row("REST h1", 8_000),
    ]);
    expect(rows.map((r) => [r.name, r.ratioToBare, r.ratioToBareH2])).toEqual([
      [baselineName, 1, null],
      [`${bareH2Name} -m1`, 0.5, 1],
      [`${bareH2Name} -m10`, 1.25, 1],
      ["gRPC -m10", 0.25, 0.2],
      ["REST h1", 0.4, null],
    ]);
  });

  it("medianOfRounds: medians of measures and of per-round ratios, errors and counted requests summed", () => {
    // Round 2 ran on a slower machine: the target and its reference dropped together, so its ratio held.
    const rounds = [
      setRatios([row(baselineName, 20_000), row("target", 10_000, { p99Ms: 9, non2xx: 1, metrics: { sent: 5, counted: 5 } })]),
      setRatios([row(baselineName, 10_000), row("target", 5_000, { p99Ms: 30, metrics: { sent: 5, counted: 4 } })]),
      setRatios([row(baselineName, 21_000), row("target", 9_000, { p99Ms: 10, failed: 2, metrics: { sent: 5, counted: 5 } })]),
    ];
    const [bare, target] = medianOfRounds(rounds);
    expect(bare).toMatchObject({ reqPerSec: 20_000, ratioToBare: 1 });
    expect(target).toMatchObject({
      reqPerSec: 9_000, p99Ms: 10, ratioToBare: 0.5, non2xx: 1, failed: 2, requests: 240_000, metrics: { sent: 15, counted: 14 },
    });
  });

  it("setRatios: Keyward rows against their peers (same protocol and -m), fixed-rate rows' p99 against the bare one's", () => {
    const versus = [{ label: "memory", includes: "memory peer" }, { label: "grpc-js", includes: "grpc-js peer", excludes: "RateLimiterRedis" }];
    const fixedRate = (capacityOf: string, isBaseline: boolean, fullLoadRow: string) =>
      ({ capacityOf, isBaseline, fullLoadRow, offeredRps: 10_000, p99VsBaseline: null, ofOwnCapacity: null });
    const rows = setRatios([
      row(baselineName, 20_000),
      row("memory peer", 16_000),
      row("grpc-js peer -m10", 4_000, { protocol: "h2c", streams: 10 }),
      row("grpc-js + RateLimiterRedis peer -m1", 3_000, { protocol: "h2c" }),
      row("grpc-js peer -m1", 2_000, { protocol: "h2c" }),
      row("REST", 8_000, { versus }),
      row("gRPC -m1", 3_000, { protocol: "h2c", versus }),
      row(`${baselineName} @ half`, 10_000, { p99Ms: 0.5, fixedRate: fixedRate(baselineName, true, baselineName) }),
      row("REST @ half", 10_000, { p99Ms: 0.8, fixedRate: fixedRate(baselineName, false, "REST") }),
      row("gRPC @ half", 5_000, { p99Ms: 3, fixedRate: fixedRate(`${bareH2Name} -m1`, false, "gRPC -m2") }),
    ]);
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(byName["REST"].versusPeers).toEqual({ memory: 0.5, "grpc-js": null });
    expect(byName["gRPC -m1"].versusPeers).toEqual({ memory: null, "grpc-js": 1.5 });
    expect(byName["memory peer"].versusPeers).toBeUndefined();
    expect(byName[`${baselineName} @ half`].fixedRate?.p99VsBaseline).toBe(1);
    expect(byName["REST @ half"].fixedRate?.p99VsBaseline).toBeCloseTo(1.6, 9);
    expect(byName["gRPC @ half"].fixedRate?.p99VsBaseline).toBeNull(); // its bare row did not run
    // The offered load against the same target's req/s at full load: half the bare handler's is 0.5 of its own.
    expect(byName[`${baselineName} @ half`].fixedRate?.ofOwnCapacity).toBe(0.5);
    expect(byName["REST @ half"].fixedRate?.ofOwnCapacity).toBe(1.25);
    expect(byName["gRPC @ half"].fixedRate?.ofOwnCapacity).toBeNull(); // no row of that name ran at full load
  });

  it("medianOfRounds: medians of GC columns (the longest pause: the worst round's), peer ratios and fixed-rate numbers", () => {
    const versus = [{ label: "memory", includes: "memory peer" }];
    const atHalf = (isBaseline: boolean, fullLoadRow?: string) =>
      ({ capacityOf: "bare", isBaseline, fullLoadRow, offeredRps: 10_000, p99VsBaseline: null, ofOwnCapacity: null });
    const round = (peer: number, promoted: number, p99: number, restRps: number) => setRatios([
      row("memory peer", peer),
      row("REST", restRps, { versus, promotedBytesPerRequest: promoted, gcShare: promoted / 10_000, maxGcPauseMs: promoted / 10 }),
      row("bare @ half", 10_000, { p99Ms: 1, fixedRate: atHalf(true) }),
      row("REST @ half", 10_000, { p99Ms: p99, fixedRate: atHalf(false, "REST") }),
    ]);
    const [, rest, bareHalf, half] = medianOfRounds([round(16_000, 300, 2, 12_500), round(8_000, 100, 4, 8_000), round(10_000, 200, 3, 10_000)]);
    // The longest pause is the worst round's (30 ms), not the median round's (20 ms).
    expect(rest).toMatchObject({ promotedBytesPerRequest: 200, gcShare: 0.02, maxGcPauseMs: 30, versusPeers: { memory: 1 } });
    expect(half.fixedRate).toEqual({ capacityOf: "bare", isBaseline: false, fullLoadRow: "REST", offeredRps: 10_000, p99VsBaseline: 3, ofOwnCapacity: 1 });
    expect(bareHalf.fixedRate?.ofOwnCapacity).toBeNull();
  });

  it("medianOfRounds refuses a round that lacks a target", () => {
    expect(() => medianOfRounds([[row("a", 1)], [row("b", 1)]])).toThrow(/a is missing from a round/);
  });
});
