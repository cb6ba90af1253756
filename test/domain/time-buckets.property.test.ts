import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bucketCount, bucketStart, GRANULARITIES, nextBucketStart, type Granularity } from "../../src/domain/time-buckets.js";

const at = (iso: string) => Date.parse(iso);
// 1970 to 2200, so month ends of many leap and common years (2000, 2100) are drawn.
const instant = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) });
const granularity = fc.constantFrom<Granularity>(...GRANULARITIES);

/** The days of a UTC month, from the civil calendar's rule (not from Date). */
function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month];
}

describe("time buckets", () => {
  it("every instant lies in its bucket: start <= t < next start", () => {
    fc.assert(fc.property(instant, granularity, (t, g) => {
      const start = bucketStart(t, g);
      expect(start).toBeLessThanOrEqual(t);
      expect(nextBucketStart(start, g)).toBeGreaterThan(t);
      expect(bucketStart(start, g)).toBe(start);
    }), { numRuns: 2000 });
  });

  it("a month bucket starts at 00:00 UTC on the 1st and lasts exactly the calendar month's days", () => {
    fc.assert(fc.property(instant, (t) => {
      const start = new Date(bucketStart(t, "month"));
      expect([start.getUTCDate(), start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds()]).toEqual([1, 0, 0, 0, 0]);
      const length = nextBucketStart(start.getTime(), "month") - start.getTime();
      expect(length).toBe(daysInMonth(start.getUTCFullYear(), start.getUTCMonth()) * 86_400_000);
    }), { numRuns: 2000 });
  });

  it("the last millisecond of a month and the first of the next fall in different month buckets", () => {
    fc.assert(fc.property(fc.integer({ min: 1970, max: 2199 }), fc.integer({ min: 0, max: 11 }), (year, month) => {
      const boundary = Date.UTC(year, month + 1, 1);
      expect(bucketStart(boundary - 1, "month")).toBe(Date.UTC(year, month, 1));
      expect(bucketStart(boundary, "month")).toBe(boundary);
      expect(bucketStart(boundary - 1, "day")).toBe(boundary - 86_400_000);
      expect(bucketCount(boundary - 1, boundary + 1, "month")).toBe(2);
    }), { numRuns: 1000 });
  });

  it("bucketCount equals the number of buckets met by walking from start to end", () => {
    const range = fc.tuple(instant, fc.integer({ min: 1, max: 400 * 86_400_000 }));
    fc.assert(fc.property(range, fc.constantFrom<Granularity>("day", "month"), ([start, span], g) => {
      let walked = 0;
      for (let b = bucketStart(start, g); b < start + span; b = nextBucketStart(b, g)) walked += 1;
      expect(bucketCount(start, start + span, g)).toBe(walked);
    }), { numRuns: 300 });
  });

  it("leap years: February 2024 and 2000 have 29 days, 2100 and 2025 have 28", () => {
    const february = (year: number) => nextBucketStart(Date.UTC(year, 1, 1), "month") - Date.UTC(year, 1, 1);
    expect([2024, 2000, 2100, 2025].map((y) => february(y) / 86_400_000)).toEqual([29, 29, 28, 28]);
    expect(bucketStart(at("2024-02-29T23:59:59.999Z"), "month")).toBe(at("2024-02-01T00:00:00Z"));
    expect(bucketStart(at("2024-03-01T00:00:00Z"), "month")).toBe(at("2024-03-01T00:00:00Z"));
    expect(bucketCount(at("2024-01-15T00:00:00Z"), at("2024-03-01T00:00:00Z"), "month")).toBe(2);
    expect(bucketCount(at("2024-01-15T00:00:00Z"), at("2024-03-01T00:00:00.001Z"), "month")).toBe(3);
    expect(bucketCount(0, 0, "hour")).toBe(0);
    expect(bucketCount(at("2030-01-01T00:00:00Z"), at("2030-01-02T00:00:00Z"), "hour")).toBe(24);
  });
});
