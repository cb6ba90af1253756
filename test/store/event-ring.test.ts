import { describe, expect, it } from "vitest";
import { EventRing } from "../../src/store/event-ring.js";
import { encodeEvent } from "../../src/store/embedded/event-segments.js";
import { eventDocument } from "../../src/store/mongo/events-filters.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";

const T = 1_700_002_800_000;

function event(n: number, fields: Partial<VerificationEvent> = {}): VerificationEvent {
  return {
    time: T + n, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", identityId: undefined, outcome: "VALID",
    tags: [], creditsSpent: 1, latencyMs: 0.125 + n, requestId: `req_${n}`, ...fields,
  };
}

const times = (events: VerificationEvent[]) => events.map((e) => e.time - T);

describe("EventRing (the event batcher's columnar buffer)", () => {
  it("gives back every field exactly as recorded: identity, tags in order with repeats, fractions, request ids", () => {
    const ring = new EventRing(100);
    const recorded = [
      event(0),
      event(1, { identityId: "id_7", tags: ["path=/b", "eu", "path=/b"], creditsSpent: 3, latencyMs: 0.1 + 0.2 }),
      event(2, { outcome: "RATE_LIMITED", creditsSpent: 0, requestId: "req_1ChUivdqnQ9YPEJ2zUssyw", tags: ["eu"] }),
      event(3, { time: T - 0.5, workspaceId: "", keyId: "key_ü✓", tags: ["über", ""] }),
    ];
    for (const e of recorded) expect(ring.push(e)).toBe(false);
    expect(ring.size).toBe(4);
    const taken = ring.take(10);
    expect(taken).toStrictEqual(recorded);
    expect(ring.size).toBe(0);
    // What the writers make of them is the same bytes and documents as for the recorded objects.
    expect(taken.map(encodeEvent)).toStrictEqual(recorded.map(encodeEvent));
    expect(taken.map(eventDocument)).toStrictEqual(recorded.map(eventDocument));
  });

  it("copies the event: changing the object after recording changes nothing buffered", () => {
    const ring = new EventRing(10);
    const recorded = event(0, { tags: ["a"] });
    ring.push(recorded);
    recorded.tags.push("b");
    recorded.keyId = "key_other";
    recorded.time = 0;
    expect(ring.take(1)).toStrictEqual([event(0, { tags: ["a"] })]);
  });

  it("an event without tags reads back without tags (writers store [] for it, as before)", () => {
    const ring = new EventRing(10);
    const { tags: _, ...untagged } = event(0);
    ring.push(untagged as VerificationEvent);
    const [taken] = ring.take(1);
    expect(taken!.tags).toBeUndefined();
    expect(encodeEvent(taken!)).toBe(encodeEvent(untagged as VerificationEvent));
  });

  it("keeps an event of another shape as the object itself: long or non-ASCII request id, non-string tag", () => {
    const ring = new EventRing(10);
    const odd = [
      event(0, { requestId: `req_${"x".repeat(40)}` }),
      event(1, { requestId: "req_é" }),
      event(2, { tags: [7 as unknown as string] }),
      event(3, { creditsSpent: undefined as unknown as number }),
    ];
    ring.push(event(9));
    for (const e of odd) ring.push(e);
    const taken = ring.take(10);
    expect(taken[0]).toStrictEqual(event(9));
    for (let i = 0; i < odd.length; i++) expect(taken[i + 1]).toBe(odd[i]);
  });

  it("when full, overwrites the oldest and says so; takes stay oldest first across the wrap", () => {
    const ring = new EventRing(4, 4);
    const dropped = [0, 1, 2, 3, 4, 5].map((n) => ring.push(event(n)));
    expect(dropped).toStrictEqual([false, false, false, false, true, true]);
    expect(ring.size).toBe(4);
    expect(times(ring.take(3))).toStrictEqual([2, 3, 4]);
    ring.push(event(6));
    ring.push(event(7));
    expect(times(ring.take(10))).toStrictEqual([5, 6, 7]);
  });

  it("grows from its first storage up to capacity, keeping the order of a wrapped buffer", () => {
    const ring = new EventRing(50, 4);
    for (const n of [0, 1, 2, 3]) ring.push(event(n));
    expect(times(ring.take(2))).toStrictEqual([0, 1]);
    for (let n = 4; n < 52; n++) expect(ring.push(event(n, { keyId: `key_${n}` }))).toBe(false);
    expect(ring.size).toBe(50);
    expect(ring.push(event(52))).toBe(true);
    const taken = ring.take(100);
    expect(times(taken)).toStrictEqual(Array.from({ length: 50 }, (_, i) => i + 3));
    expect(taken[10]).toStrictEqual(event(13, { keyId: "key_13" }));
  });

  it("unshift puts events back in front, growing as needed, and counts those beyond capacity", () => {
    const ring = new EventRing(6, 2);
    ring.push(event(10));
    ring.push(event(11));
    expect(ring.unshift([0, 1, 2].map((n) => event(n)))).toBe(0);
    expect(ring.unshift([3, 4, 5].map((n) => event(n)))).toBe(2); // room for one: the newest of the three
    expect(times(ring.take(10))).toStrictEqual([5, 0, 1, 2, 10, 11]);
  });

  it("interns strings: a thousand events of one key hold one copy of each id, whatever their request ids", () => {
    const ring = new EventRing(2_000);
    for (let n = 0; n < 1_000; n++) ring.push(event(n, { tags: ["eu", "path=/a"], requestId: `req_${n.toString(36)}` }));
    // ws_1, api_1, key_1, VALID, eu, path=/a, and one tag list.
    expect(ring.dictionarySize()).toBe(7);
    const taken = ring.take(1_000);
    expect(taken[999]).toStrictEqual(event(999, { tags: ["eu", "path=/a"], requestId: `req_${(999).toString(36)}` }));
  });

  it("drops strings no buffered event uses any more, so unbounded identifiers never accumulate", () => {
    const ring = new EventRing(100_000, 1_000);
    for (let round = 0; round < 20; round++) {
      for (let n = 0; n < 1_000; n++) ring.push(event(n, { keyId: `user_${round}_${n}`, tags: [`t${round}_${n}`] }));
      ring.take(ring.size - 100); // 100 stay buffered across each rebuild
      expect(ring.dictionarySize()).toBeLessThan(10_000);
    }
    const rest = ring.take(1_000);
    expect(rest).toHaveLength(100);
    expect(rest[99]).toStrictEqual(event(999, { keyId: "user_19_999", tags: ["t19_999"] }));
    expect(rest[0]).toStrictEqual(event(900, { keyId: "user_19_900", tags: ["t19_900"] }));
  });
});
