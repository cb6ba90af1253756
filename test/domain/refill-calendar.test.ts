import { describe, expect, it } from "vitest";
import { applyRefill, latestRefillBoundary } from "../../src/domain/refill-calendar.js";

const at = (iso: string) => Date.parse(iso);

describe("latestRefillBoundary", () => {
  it("daily: today 00:00 UTC, moving on exactly at midnight", () => {
    expect(latestRefillBoundary({ interval: "daily" }, at("2025-03-10T23:59:59.999Z"))).toBe(at("2025-03-10T00:00:00Z"));
    expect(latestRefillBoundary({ interval: "daily" }, at("2025-03-11T00:00:00.000Z"))).toBe(at("2025-03-11T00:00:00Z"));
    expect(latestRefillBoundary({ interval: "daily", refillDay: 15 }, at("2025-03-11T00:00:00.001Z"))).toBe(at("2025-03-11T00:00:00Z"));
  });

  it("monthly: this month's refill day once reached, else last month's", () => {
    const rule = { interval: "monthly" as const, refillDay: 15 };
    expect(latestRefillBoundary(rule, at("2025-06-20T08:00:00Z"))).toBe(at("2025-06-15T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2025-06-14T23:59:59.999Z"))).toBe(at("2025-05-15T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2025-06-15T00:00:00.000Z"))).toBe(at("2025-06-15T00:00:00Z"));
  });

  it("monthly refillDay 31 falls on February's last day: the 28th, and the 29th in leap years 2024 and 2028", () => {
    const rule = { interval: "monthly" as const, refillDay: 31 };
    expect(latestRefillBoundary(rule, at("2025-02-28T00:00:00Z"))).toBe(at("2025-02-28T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2025-02-27T12:00:00Z"))).toBe(at("2025-01-31T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2024-02-28T12:00:00Z"))).toBe(at("2024-01-31T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2024-02-29T00:00:00Z"))).toBe(at("2024-02-29T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2028-02-29T06:00:00Z"))).toBe(at("2028-02-29T00:00:00Z"));
    // Early March still belongs to February's (clamped) refill.
    expect(latestRefillBoundary(rule, at("2028-03-05T00:00:00Z"))).toBe(at("2028-02-29T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2025-03-30T23:59:59Z"))).toBe(at("2025-02-28T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2025-03-31T00:00:00Z"))).toBe(at("2025-03-31T00:00:00Z"));
  });

  it("monthly refillDay 31 in 30-day months falls on the 30th", () => {
    const rule = { interval: "monthly" as const, refillDay: 31 };
    expect(latestRefillBoundary(rule, at("2025-04-30T00:00:00Z"))).toBe(at("2025-04-30T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2025-04-29T23:00:00Z"))).toBe(at("2025-03-31T00:00:00Z"));
    expect(latestRefillBoundary(rule, at("2025-07-01T00:00:00Z"))).toBe(at("2025-06-30T00:00:00Z"));
  });

  it("monthly refillDay 1 (also the default): the first of the month, crossing the year in January", () => {
    expect(latestRefillBoundary({ interval: "monthly", refillDay: 1 }, at("2025-01-01T00:00:00Z"))).toBe(at("2025-01-01T00:00:00Z"));
    expect(latestRefillBoundary({ interval: "monthly" }, at("2025-12-31T23:59:59.999Z"))).toBe(at("2025-12-01T00:00:00Z"));
    expect(latestRefillBoundary({ interval: "monthly", refillDay: 5 }, at("2025-01-04T00:00:00Z"))).toBe(at("2024-12-05T00:00:00Z"));
  });

  it("refuses a refillDay outside 1-31", () => {
    expect(() => latestRefillBoundary({ interval: "monthly", refillDay: 0 }, 0)).toThrow(RangeError);
    expect(() => latestRefillBoundary({ interval: "monthly", refillDay: 32 }, 0)).toThrow(RangeError);
  });
});

describe("applyRefill", () => {
  const boundary = at("2025-06-01T00:00:00Z");

  it("replaces a balance below the amount and records the boundary", () => {
    expect(applyRefill({ remaining: 3, lastRefillAt: at("2025-05-01T00:00:00Z") }, { boundary, amount: 100 })).toEqual({
      remaining: 100,
      lastRefillAt: boundary,
    });
  });

  it("does not add: a balance above the amount stays, only lastRefillAt moves", () => {
    expect(applyRefill({ remaining: 250, lastRefillAt: at("2025-05-01T00:00:00Z") }, { boundary, amount: 100 })).toEqual({
      remaining: 250,
      lastRefillAt: boundary,
    });
  });

  it("refills once for a key last refilled two months ago, and not again at the same boundary", () => {
    const once = applyRefill({ remaining: 0, lastRefillAt: at("2025-04-01T00:00:00Z") }, { boundary, amount: 100 });
    expect(once).toEqual({ remaining: 100, lastRefillAt: boundary });
    const spent = { ...once, remaining: 40 };
    expect(applyRefill(spent, { boundary, amount: 100 })).toBe(spent);
  });

  it("refills a balance set before midnight at exactly 00:00, but not one set after the boundary", () => {
    const daily = latestRefillBoundary({ interval: "daily" }, at("2025-06-02T00:00:00Z"));
    expect(applyRefill({ remaining: 1, lastRefillAt: at("2025-06-01T23:59:59.999Z") }, { boundary: daily, amount: 10 })).toEqual({
      remaining: 10,
      lastRefillAt: daily,
    });
    const setToday = { remaining: 1, lastRefillAt: at("2025-06-02T00:00:00Z") };
    expect(applyRefill(setToday, { boundary: daily, amount: 10 })).toBe(setToday);
  });

  it("changes nothing without a refill rule", () => {
    const state = { remaining: 2, lastRefillAt: 0 };
    expect(applyRefill(state)).toBe(state);
  });
});
