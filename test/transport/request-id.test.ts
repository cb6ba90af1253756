import { describe, expect, it } from "vitest";
import { BASE58_ALPHABET } from "../../src/domain/base58.js";
import { newRequestId, requestIdAt } from "../../src/transport/request-id.js";

const timeOf = (id: string): number => [...id.slice(4, 13)].reduce((n, c) => n * 58 + BASE58_ALPHABET.indexOf(c), 0);

describe("newRequestId", () => {
  it("gives distinct req_ ids of 22 base58 characters, across refills of its random pool", () => {
    // A 4096-byte pool, ~14 bytes an id: 3,000 ids draw it ten times over.
    const ids = Array.from({ length: 3_000 }, () => newRequestId());
    const shape = new RegExp(`^req_[${BASE58_ALPHABET}]{22}$`);
    for (const id of ids) expect(id).toMatch(shape);
    expect(new Set(ids).size).toBe(ids.length);
    // Ids of one millisecond share the time digits and differ in the random ones.
    expect(new Set(ids.map((id) => id.slice(-13))).size).toBe(ids.length);
  });

  it("starts with the millisecond in 9 digits, so ids sort by time", () => {
    const times = [0, 1, 57, 58, 1_795_875_492_354, 2 ** 48 - 1];
    const ids = times.map(requestIdAt);
    expect(ids.map(timeOf)).toEqual(times);
    expect(ids[0].slice(4, 13)).toBe("111111111");
    expect([...ids].sort()).toEqual(ids);
    // The same millisecond again keeps its digits; the next one changes them.
    expect(requestIdAt(58).slice(4, 13)).toBe(ids[3].slice(4, 13));
    expect(timeOf(newRequestId())).toBeGreaterThanOrEqual(Date.now() - 1_000);
  });

  it("draws every random digit evenly", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) for (const c of newRequestId().slice(13)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(58);
    // 260,000 digits, 4,483 expected each: a digit favoured by the byte mapping (5 bytes of 256 against 4) would
    // be seen ~5,500 times.
    for (const count of counts.values()) expect(Math.abs(count - 260_000 / 58)).toBeLessThan(400);
  });
});
