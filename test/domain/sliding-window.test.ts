import { describe, expect, it } from "vitest";
import { evaluateWindow, windowOf } from "../../src/domain/sliding-window.js";

describe("windowOf", () => {
  it("aligns windows to the epoch and reports start, previous start, reset and elapsed", () => {
    expect(windowOf(1_700_000_012_345, 60_000)).toEqual({
      start: 1_699_999_980_000,
      previousStart: 1_699_999_920_000,
      reset: 1_700_000_040_000,
      elapsed: 32_345,
    });
  });

  it("starts a new window exactly at the boundary, with elapsed 0", () => {
    expect(windowOf(120_000, 60_000)).toEqual({ start: 120_000, previousStart: 60_000, reset: 180_000, elapsed: 0 });
    expect(windowOf(119_999, 60_000)).toEqual({ start: 60_000, previousStart: 0, reset: 120_000, elapsed: 59_999 });
  });
});

describe("evaluateWindow", () => {
  const base = { current: 0, previous: 0, elapsed: 0, duration: 60_000, limit: 10, cost: 1 };

  it("counts the cost against the current window", () => {
    expect(evaluateWindow({ ...base, current: 4 })).toEqual({ effective: 5, exceeded: false, remaining: 5, remainingIfNotCounted: 6 });
  });

  it("allows reaching the limit exactly and refuses going past it", () => {
    expect(evaluateWindow({ ...base, current: 9 })).toMatchObject({ effective: 10, exceeded: false, remaining: 0 });
    expect(evaluateWindow({ ...base, current: 10 })).toMatchObject({ effective: 11, exceeded: true, remaining: 0 });
  });

  it("weighs the previous window by the part of it still inside the sliding window, rounding down", () => {
    // 25% into the window: 75% of 10 = 7.5 → 7.
    expect(evaluateWindow({ ...base, previous: 10, elapsed: 15_000 })).toMatchObject({ effective: 8, exceeded: false, remaining: 2 });
    // At the very start the whole previous window counts; just before the end almost nothing of it.
    expect(evaluateWindow({ ...base, previous: 10, elapsed: 0 })).toMatchObject({ effective: 11, exceeded: true });
    expect(evaluateWindow({ ...base, previous: 10, elapsed: 59_999 })).toMatchObject({ effective: 1, exceeded: false });
    // 1/3 of 7 = 2.33 → 2 (multiplication before division keeps it exact).
    expect(evaluateWindow({ ...base, previous: 7, elapsed: 40_000, duration: 60_000 }).effective).toBe(3);
  });

  it("reports what is left without the call when it is exceeded: 0 for cost 1, the true room for a larger cost", () => {
    expect(evaluateWindow({ ...base, current: 10 })).toEqual({ effective: 11, exceeded: true, remaining: 0, remainingIfNotCounted: 0 });
    expect(evaluateWindow({ ...base, current: 7, cost: 5 })).toEqual({ effective: 12, exceeded: true, remaining: 3, remainingIfNotCounted: 3 });
  });

  it("checks without counting at cost 0: passes at the limit, reports the room left", () => {
    expect(evaluateWindow({ ...base, current: 10, cost: 0 })).toEqual({ effective: 10, exceeded: false, remaining: 0, remainingIfNotCounted: 0 });
    expect(evaluateWindow({ ...base, current: 3, cost: 0 })).toEqual({ effective: 3, exceeded: false, remaining: 7, remainingIfNotCounted: 7 });
  });

  it("never reports a negative remainder when the previous window alone is over a lowered limit", () => {
    expect(evaluateWindow({ ...base, previous: 50, limit: 10 })).toMatchObject({ effective: 51, exceeded: true, remaining: 0 });
  });
});
