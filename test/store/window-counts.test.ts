import { describe, expect, it } from "vitest";
import { countIn, createWindowCounts } from "../../src/store/embedded/window-counts.js";

/** The windows as the embedded store first kept them: every (start, count), newest first, the two newest kept. */
function referenceAdd(slots: Array<{ start: number; count: number }>, start: number, cost: number) {
  const same = slots.find((s) => s.start === start);
  if (same) {
    same.count += cost;
    return slots;
  }
  return [...slots, { start, count: cost }].sort((a, b) => b.start - a.start).slice(0, 2);
}

describe("embedded rate-limit window counts", () => {
  it("keeps the two newest windows exactly as a sorted list would, whatever order the starts come in", () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let run = 0; run < 200; run++) {
      const counts = createWindowCounts();
      const bucket = counts.create("tag", "key:a:x", 60_000);
      let reference: Array<{ start: number; count: number }> = [];
      for (let step = 0; step < 30; step++) {
        // Starts of nearby windows, earlier ones too (steps of one turn may carry an older `now`); negatives included.
        const start = (Math.floor(random() * 6) - 2) * 60_000;
        const cost = Math.floor(random() * 3);
        counts.add(bucket, start, cost);
        reference = referenceAdd(reference, start, cost);
        for (let probe = -3; probe <= 4; probe++) {
          const at = probe * 60_000;
          expect(countIn(bucket, at)).toBe(reference.find((s) => s.start === at)?.count ?? 0);
        }
      }
    }
  });

  it("finds a bucket by tag, name and duration only; a missing one counts 0", () => {
    const counts = createWindowCounts();
    const minute = counts.create("tag", "key:a:x", 60_000);
    counts.add(minute, 0, 3);
    const hour = counts.create("tag", "key:a:x", 3_600_000);
    expect(counts.find("tag", "key:a:x", 60_000)).toBe(minute);
    expect(counts.find("tag", "key:a:x", 3_600_000)).toBe(hour);
    expect(counts.find("other", "key:a:x", 60_000)).toBeUndefined();
    expect(counts.find("tag", "key:a:y", 60_000)).toBeUndefined();
    expect(countIn(undefined, 0)).toBe(0);
    expect(countIn(hour, 0)).toBe(0);
    expect(counts.size).toBe(2);
  });

  it("sweeps, once 1,024 buckets are held, those whose newest window is two windows old, keeping the others and their counts", () => {
    const counts = createWindowCounts();
    for (let i = 0; i < 1_023; i++) counts.add(counts.create(`t${i % 7}`, `b${i}`, 60_000), 0, 1);
    const live = counts.create("t0", "b0", 120_000);
    counts.add(live, 0, 5);
    counts.seen(120_000);
    counts.sweep();
    expect(counts.size).toBe(1);
    expect(counts.find("t0", "b0", 120_000)).toBe(live);
    expect(counts.find("t0", "b0", 60_000)).toBeUndefined();
    expect(countIn(live, 0)).toBe(5);
  });
});
