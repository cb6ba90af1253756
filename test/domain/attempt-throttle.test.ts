import { describe, expect, it } from "vitest";
import { clientOfAddress, createAttemptThrottle } from "../../src/domain/attempt-throttle.js";

const OPTIONS = { maxFailures: 3, windowMs: 60_000, lockoutMs: 30_000, maxClients: 100 };
const T = 1_000_000;

/** `count` failed attempts of `client` at `now`, each admitted. */
function fail(throttle: ReturnType<typeof createAttemptThrottle>, client: string, now: number, count: number): void {
  for (let i = 0; i < count; i++) expect(throttle.admit(client, now)).toEqual({ admitted: true });
}

describe("createAttemptThrottle", () => {
  it("admits maxFailures attempts, then refuses for lockoutMs from the last one, then starts over", () => {
    const throttle = createAttemptThrottle(OPTIONS);
    fail(throttle, "a", T, 2);
    fail(throttle, "a", T + 10_000, 1);
    expect(throttle.admit("a", T + 10_000)).toEqual({ admitted: false, retryAfterMs: 30_000 });
    expect(throttle.admit("a", T + 39_999)).toEqual({ admitted: false, retryAfterMs: 1 });
    fail(throttle, "a", T + 40_000, 2);
    expect(throttle.admit("a", T + 40_000)).toEqual({ admitted: true });
    expect(throttle.admit("a", T + 40_000)).toEqual({ admitted: false, retryAfterMs: 30_000 });
  });

  it("forgets failures older than the window", () => {
    const throttle = createAttemptThrottle(OPTIONS);
    fail(throttle, "a", T, 2);
    fail(throttle, "a", T + 60_000, 2);
    expect(throttle.admit("a", T + 60_000)).toEqual({ admitted: true });
    expect(throttle.admit("a", T + 60_000).admitted).toBe(false);
  });

  it("counts an attempt when it is admitted, so concurrent attempts cannot all slip in", () => {
    const throttle = createAttemptThrottle(OPTIONS);
    const admitted = Array.from({ length: 50 }, () => throttle.admit("a", T)).filter((a) => a.admitted);
    expect(admitted).toHaveLength(3);
  });

  it("a success clears the client's failures; a withdrawn attempt no longer counts, nor the lockout it began", () => {
    const throttle = createAttemptThrottle(OPTIONS);
    fail(throttle, "a", T, 2);
    throttle.succeeded("a");
    fail(throttle, "a", T, 3);
    expect(throttle.admit("a", T).admitted).toBe(false);
    throttle.withdrawn("a");
    fail(throttle, "a", T, 1);
    expect(throttle.admit("a", T).admitted).toBe(false);
    throttle.withdrawn("unknown client");
    expect(throttle.size).toBe(1);
  });

  it("keeps other clients apart", () => {
    const throttle = createAttemptThrottle(OPTIONS);
    fail(throttle, "a", T, 3);
    expect(throttle.admit("a", T).admitted).toBe(false);
    fail(throttle, "b", T, 3);
  });

  it("tracks at most maxClients, forgetting the one whose last attempt is oldest, and drops expired entries", () => {
    const throttle = createAttemptThrottle({ ...OPTIONS, maxClients: 3 });
    fail(throttle, "a", T, 2);
    fail(throttle, "b", T + 1, 2);
    fail(throttle, "c", T + 2, 2);
    fail(throttle, "a", T + 3, 1); // a is now the most recent; b the oldest
    expect(throttle.admit("a", T + 3).admitted).toBe(false);
    fail(throttle, "d", T + 4, 1); // b is forgotten
    expect(throttle.size).toBe(3);
    fail(throttle, "b", T + 5, 3); // a fresh allowance; c is forgotten
    fail(throttle, "e", T + 60_003, 1); // a's window (from T) has passed, d's and b's have not
    expect(throttle.size).toBe(3);
    fail(throttle, "f", T + 60_010, 1);
    expect(throttle.size).toBe(2);
  });

  it("never asks to wait longer than the lockout, even when the clock stepped back", () => {
    const throttle = createAttemptThrottle(OPTIONS);
    fail(throttle, "a", T, 3);
    expect(throttle.admit("a", T - 5_000)).toEqual({ admitted: false, retryAfterMs: 30_000 });
  });
});

describe("clientOfAddress", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["::FFFF:10.1.2.3", "10.1.2.3"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:0DB8:0001:0002::9", "2001:db8:1:2::/64"],
    ["2001:db8:1::", "2001:db8:1:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
    [undefined, "unknown"],
    ["", "unknown"],
    ["1::2::3", "unknown"],
    ["2001:db8:1:2:3:4:5:6:7", "unknown"],
    ["2001:db8:zz::1", "unknown"],
    ["::1.2.3.999", "unknown"],
  ])("%s is client %s", (address, client) => {
    expect(clientOfAddress(address)).toBe(client);
  });
});
