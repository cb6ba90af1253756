import { describe, expect, it } from "vitest";
import { durationText, parseDuration, rateText } from "../../web/duration.js";

describe("dashboard durations (web/duration.ts)", () => {
  it("writes a duration with the largest unit that divides it", () => {
    expect([500, 1000, 60_000, 90_000, 3_600_000, 86_400_000, 0].map((ms) => durationText(ms))).toEqual(["500 ms", "1 s", "1 min", "90 s", "1 h", "1 d", "0 ms"]);
    expect(rateText(3n, 60_000n)).toBe("3 per 1 min");
  });

  it("reads what it writes and the usual spellings", () => {
    expect(["60 s", "60s", "1 min", "1m", "2 H", "1 day", "1500 ms"].map((t) => parseDuration(t))).toEqual(
      [{ ms: 60_000 }, { ms: 60_000 }, { ms: 60_000 }, { ms: 60_000 }, { ms: 7_200_000 }, { ms: 86_400_000 }, { ms: 1500 }],
    );
  });

  it("says in words what is wrong with bad input", () => {
    expect(parseDuration("abc")).toEqual({ error: "“abc” is not a duration: write a number and a unit, e.g. 60 s, 5 min, 1 h or 1 d." });
    expect(parseDuration("60")).toHaveProperty("error", "“60” is not a duration: write a number and a unit, e.g. 60 s, 5 min, 1 h or 1 d.");
    expect(parseDuration("10 fortnights")).toHaveProperty("error");
    expect(parseDuration("-5 s")).toHaveProperty("error");
    expect(parseDuration("500 ms")).toEqual({ error: "The window must be at least 1 s." });
    expect(parseDuration("99999999999999999999 d")).toEqual({ error: "The window must be at most 3650 d (ten years)." });
  });
});

describe("dashboard UTC times (web/utc-time.ts)", () => {
  it("reads ISO 24-hour UTC times, with or without seconds, T or space, and a date alone", async () => {
    const { parseUtc, utcText } = await import("../../web/utc-time.js");
    expect(parseUtc("2030-01-01 13:05")).toEqual({ ms: Date.UTC(2030, 0, 1, 13, 5) });
    expect(parseUtc("2030-01-01T13:05:07Z")).toEqual({ ms: Date.UTC(2030, 0, 1, 13, 5, 7) });
    expect(parseUtc("2030-01-01 13:05:07 UTC")).toEqual({ ms: Date.UTC(2030, 0, 1, 13, 5, 7) });
    expect(parseUtc("2030-01-02")).toEqual({ ms: Date.UTC(2030, 0, 2) });
    expect(parseUtc("  ")).toEqual({});
    expect(utcText(Date.UTC(2030, 0, 1, 13, 5, 7))).toBe("2030-01-01 13:05:07");
  });

  it("says in words what is wrong with a time that is malformed or does not exist", async () => {
    const { parseUtc } = await import("../../web/utc-time.js");
    expect(parseUtc("01/02/2030 1:05 PM")).toEqual({ error: "“01/02/2030 1:05 PM” is not a time: write it as YYYY-MM-DD HH:MM[:SS] (UTC, 24-hour), e.g. 2030-01-01 13:05." });
    expect(parseUtc("2030-02-30")).toEqual({ error: "“2030-02-30” is not a time that exists." });
    expect(parseUtc("2030-01-01 24:00")).toEqual({ error: "“2030-01-01 24:00” is not a time that exists." });
  });
});
