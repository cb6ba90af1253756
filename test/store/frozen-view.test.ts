import { describe, expect, it } from "vitest";
import { createCollection, type Collection, type Doc } from "../../src/store/embedded/collection.js";
import { applyOps, type StoredOp } from "../../src/store/embedded/commit-plan.js";
import { freezeCollections } from "../../src/store/embedded/frozen-view.js";

/** A tiny deterministic PRNG, so a failing sequence can be replayed. */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

const id = (n: number) => `d${String(n).padStart(5, "0")}`;

function contents(collections: Map<string, Collection>): Record<string, Doc[]> {
  return Object.fromEntries([...collections].map(([name, c]) => [name, c.scan<Doc>({})]));
}

/** Replays snapshot lines into fresh collections, as opening the journal does. */
function replayed(lines: string): Record<string, Doc[]> {
  const collections = new Map<string, Collection>();
  for (const line of lines.split("\n").filter(Boolean)) applyOps(collections, JSON.parse(line).ops, (name) => createCollection(name));
  return contents(collections);
}

describe("frozen view of the embedded collections", () => {
  it("writes exactly the state at the cut while puts, deletes and re-inserts land before, inside and behind the walk", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const next = random(seed);
      const collections = new Map([["a", createCollection("a")], ["b", createCollection("b")]]);
      for (let n = 0; n < 3_000; n += 1 + next(2)) applyOps(collections, [{ put: n % 3 ? "a" : "b", doc: { id: id(n), v: 0 } as Doc }]);
      const atCut = structuredClone(contents(collections));
      const view = freezeCollections(collections);
      let lines = "";
      let round = 0;
      for (const chunk of view.chunks()) {
        lines += chunk;
        // Between two chunks, as between two writes of the snapshot: a burst of commits anywhere in the id range.
        for (let c = 0; c < 40; c++) {
          round += 1;
          const name = next(2) ? "a" : "b";
          const target = id(next(3_200));
          const ops: StoredOp[] = next(4) === 0 ? [{ del: name, id: target }] : [{ put: name, doc: { id: target, v: round } as Doc }];
          view.preserve(ops);
          applyOps(collections, ops);
        }
      }
      expect(replayed(lines), `seed ${seed}`).toEqual(atCut);
      expect(contents(collections)).not.toEqual(atCut);
    }
  });

  it("writes each collection in id order, so a replay appends, and one put per document", () => {
    const collections = new Map([["a", createCollection("a")]]);
    for (const n of [5, 1, 4, 2, 3]) applyOps(collections, [{ put: "a", doc: { id: id(n), v: n } as Doc }]);
    const lines = [...freezeCollections(collections).chunks()].join("").split("\n").filter(Boolean);
    expect(lines.map((l) => JSON.parse(l))).toEqual([1, 2, 3, 4, 5].map((n) => ({ ops: [{ put: "a", doc: { id: id(n), v: n } }] })));
  });
});
