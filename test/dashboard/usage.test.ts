import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { RatelimitBucketSchema, VerificationBucketSchema } from "../../gen/keyward/v1/analytics_pb.js";
import { bucketLabel, fillBuckets, OUTCOMES, outcomeTotals, rangeBounds, RATELIMIT_OUTCOMES } from "../../web/usage.js";

const at = (iso: string) => Date.parse(iso);

describe("dashboard usage helpers (web/usage.ts)", () => {
  it("ends a range with the bucket holding now, aligned to UTC bucket starts", () => {
    const now = at("2030-03-15T10:42:17.123Z");
    expect(rangeBounds("1h", "minute", now)).toEqual({ start: at("2030-03-15T09:43:00Z"), end: at("2030-03-15T10:43:00Z") });
    expect(rangeBounds("24h", "hour", now)).toEqual({ start: at("2030-03-14T11:00:00Z"), end: at("2030-03-15T11:00:00Z") });
    expect(rangeBounds("7d", "day", now)).toEqual({ start: at("2030-03-09T00:00:00Z"), end: at("2030-03-16T00:00:00Z") });
    expect(rangeBounds("12mo", "month", now)).toEqual({ start: at("2029-04-01T00:00:00Z"), end: at("2030-04-01T00:00:00Z") });
  });

  it("fills the buckets the API leaves out with zeros, counts in outcome order", () => {
    const rows = [create(VerificationBucketSchema, { time: BigInt(at("2030-01-01T01:00:00Z")), total: 7n, valid: 5n, usageExceeded: 2n })];
    const points = fillBuckets(rows, "hour", at("2030-01-01T00:00:00Z"), at("2030-01-01T03:00:00Z"), OUTCOMES);
    expect(points.map((p) => [bucketLabel(p.time, "hour"), p.total])).toEqual([
      ["2030-01-01 00:00 UTC", 0], ["2030-01-01 01:00 UTC", 7], ["2030-01-01 02:00 UTC", 0],
    ]);
    expect(points[1].counts).toEqual([5, 0, 2, 0, 0, 0, 0]);
    expect(outcomeTotals(points)).toEqual([5, 0, 2, 0, 0, 0, 0]);
  });

  it("steps months by the calendar (28 to 31 days)", () => {
    const points = fillBuckets([], "month", at("2030-01-01T00:00:00Z"), at("2030-04-01T00:00:00Z"), OUTCOMES);
    expect(points.map((p) => bucketLabel(p.time, "month"))).toEqual(["2030-01", "2030-02", "2030-03"]);
  });

  it("counts rate-limit checks as passed and blocked, in that order", () => {
    const rows = [create(RatelimitBucketSchema, { time: BigInt(at("2030-01-01T00:02:00Z")), total: 5n, passed: 3n, blocked: 2n, tokens: 9n })];
    const points = fillBuckets(rows, "minute", at("2030-01-01T00:00:00Z"), at("2030-01-01T00:04:00Z"), RATELIMIT_OUTCOMES);
    expect(points.map((p) => [p.counts, p.total])).toEqual([[[0, 0], 0], [[0, 0], 0], [[3, 2], 5], [[0, 0], 0]]);
    expect(outcomeTotals(points)).toEqual([3, 2]);
    expect(outcomeTotals([])).toEqual([]);
  });
});
