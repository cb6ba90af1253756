import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src/domain/base58.js";
import { monotonicIds, newId, type IdPrefix } from "../../src/domain/ids.js";

const fixed = (byte: number) => (size: number) => new Uint8Array(size).fill(byte);
const ID = /^([a-z]+)_([1-9A-HJ-NP-Za-km-z]{22})$/;

describe("newId", () => {
  it("is `<prefix>_` followed by exactly 22 base58 characters for every prefix", () => {
    const prefixes: IdPrefix[] = ["key", "api", "ws", "perm", "role", "id", "rl", "rlns", "rlor", "req", "log"];
    for (const prefix of prefixes) {
      const id = newId(prefix, Date.UTC(2030, 0, 1), fixed(0xab));
      expect(id).toMatch(ID);
      expect(ID.exec(id)?.[1]).toBe(prefix);
    }
  });

  it("encodes 6 bytes of big-endian milliseconds then the 10 random bytes", () => {
    const now = 0x0102_0304_0506;
    const random = Uint8Array.from([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    const id = newId("api", now, () => random);
    expect(id).toBe(`api_${encodeBase58(Uint8Array.from([1, 2, 3, 4, 5, 6, ...random]), 22)}`);
  });

  it("writes the same digits as encodeBase58 for any time and randomness, the extremes included", () => {
    const expected = (time: number, random: Uint8Array) => {
      const bytes = new Uint8Array(16);
      for (let i = 5, t = time; i >= 0; i--, t = Math.floor(t / 256)) bytes[i] = t % 256;
      bytes.set(random, 6);
      return `req_${encodeBase58(bytes, 22)}`;
    };
    for (const [time, byte] of [[0, 0x00], [0, 0xff], [2 ** 48 - 1, 0x00], [2 ** 48 - 1, 0xff], [1, 0x01]] as const) {
      expect(newId("req", time, fixed(byte))).toBe(expected(time, fixed(byte)(10)));
    }
    expect(newId("req", 2 ** 48 - 1, fixed(0xff))).toBe("req_YcVfxkQb6JRzqk5kF2tNLv");
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.uint8Array({ minLength: 10, maxLength: 10 }), (time, random) => {
      expect(newId("req", time, () => random)).toBe(expected(time, random));
    }), { numRuns: 5000 });
  });

  it("asks for exactly 10 random bytes and is deterministic given time and randomness", () => {
    const sizes: number[] = [];
    const a = newId("key", 1_700_000_000_000, (size) => (sizes.push(size), fixed(7)(size)));
    const b = newId("key", 1_700_000_000_000, fixed(7));
    expect(sizes).toEqual([10]);
    expect(a).toBe(b);
  });

  it("sorts by creation time to the millisecond, whatever the random part", () => {
    const later = newId("api", 1_700_000_000_001, fixed(0x00));
    const earlier = newId("api", 1_700_000_000_000, fixed(0xff));
    expect(earlier < later).toBe(true);
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 2 ** 47 }), fc.integer({ min: 1, max: 2 ** 20 }),
      fc.uint8Array({ minLength: 10, maxLength: 10 }), fc.uint8Array({ minLength: 10, maxLength: 10 }),
      (t, dt, r1, r2) => {
        expect(newId("key", t, () => r1) < newId("key", t + dt, () => r2)).toBe(true);
      },
    ), { numRuns: 1000 });
  });

  it("within one millisecond, orders by the random bytes", () => {
    const low = newId("req", 5, () => Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 1]));
    const high = newId("req", 5, () => Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 2]));
    expect(low < high).toBe(true);
  });

  it("clamps negative and fractional times to whole milliseconds from 0", () => {
    expect(newId("log", -5, fixed(1))).toBe(newId("log", 0, fixed(1)));
    expect(newId("log", 10.9, fixed(1))).toBe(newId("log", 10, fixed(1)));
  });
});

describe("monotonicIds", () => {
  const random = (size: number) => crypto.getRandomValues(new Uint8Array(size));

  it("sorts in call order within one millisecond, across milliseconds and when the clock steps back", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_005 }), { minLength: 2, maxLength: 200 }), (times) => {
        const next = monotonicIds("log", random);
        const ids = times.map((time) => next(time));
        expect([...ids].sort()).toEqual(ids);
        expect(new Set(ids).size).toBe(ids.length);
      }),
    );
  });

  it("adds 1 to the random part within a millisecond, and starts from new random bytes in the next one", () => {
    const next = monotonicIds("log", fixed(0));
    expect(next(1_000)).toBe(newId("log", 1_000, fixed(0)));
    const second = next(1_000);
    expect(second).toBe(`log_${encodeBase58(Uint8Array.from([0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), 22)}`);
    expect(next(999)).toBe(`log_${encodeBase58(Uint8Array.from([0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]), 22)}`);
    expect(next(1_001)).toBe(newId("log", 1_001, fixed(0)));
  });

  it("moves to the next millisecond when the random part would wrap", () => {
    const next = monotonicIds("log", fixed(0xff));
    expect(next(5)).toBe(newId("log", 5, fixed(0xff)));
    expect(next(5)).toBe(newId("log", 6, fixed(0xff)));
  });
});
