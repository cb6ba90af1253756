import { describe, expect, it } from "vitest";
import { createCollection, type Collection, type Doc } from "../../src/store/embedded/collection.js";
import { applyOps, planCommit } from "../../src/store/embedded/commit-plan.js";
import { UniqueViolationError } from "../../src/store/errors.js";

function collections(): Map<string, Collection> {
  const keys = createCollection("keys", { unique: { hash: (d) => d.hash } });
  const apis = createCollection("apis", { unique: { name: (d) => d.name } });
  const credits = createCollection("credits");
  keys.set({ id: "k1", hash: "h1" } as never);
  keys.set({ id: "k2", hash: "h2" } as never);
  apis.set({ id: "a1", name: "one" } as never);
  return new Map([["keys", keys], ["apis", apis], ["credits", credits]]);
}

/** A document with fields beyond its id, as collections hold them. */
const d = (fields: { id: string } & Record<string, unknown>): Doc => fields;

describe("planCommit", () => {
  it("plans a one-collection commit of a collection without unique indexes as copies of the documents", () => {
    const all = collections();
    const doc = { id: "c1", remaining: 5 };
    const ops = planCommit(all, [{ op: "put", collection: "credits", doc }]);
    expect(ops).toEqual([{ put: "credits", doc: { id: "c1", remaining: 5 } }]);
    expect((ops[0] as { doc: object }).doc).not.toBe(doc);
  });

  it("judges uniqueness per collection across a commit touching several, after the whole commit", () => {
    const all = collections();
    // Swapping two hashes in one commit is fine: each is judged by the documents' new versions.
    const swap = planCommit(all, [
      { op: "put", collection: "credits", doc: { id: "c1" } },
      { op: "put", collection: "keys", doc: d({ id: "k1", hash: "h2" }) },
      { op: "put", collection: "apis", doc: d({ id: "a2", name: "two" }) },
      { op: "put", collection: "keys", doc: d({ id: "k2", hash: "h1" }) },
    ]);
    expect(swap).toHaveLength(4);
    // A collision in a collection other than the commit's first is refused, and nothing is applied.
    expect(() => planCommit(all, [
      { op: "put", collection: "credits", doc: { id: "c2" } },
      { op: "put", collection: "keys", doc: d({ id: "k3", hash: "h3" }) },
      { op: "put", collection: "apis", doc: d({ id: "a3", name: "one" }) },
    ])).toThrow(UniqueViolationError);
    expect(() => planCommit(all, [
      { op: "put", collection: "keys", doc: d({ id: "k3", hash: "h9" }) },
      { op: "put", collection: "keys", doc: d({ id: "k4", hash: "h9" }) },
    ])).toThrow(UniqueViolationError);
    expect(() => planCommit(all, [{ op: "insert", collection: "keys", doc: d({ id: "k1", hash: "h7" }) }])).toThrow(UniqueViolationError);
    applyOps(all, swap);
    expect(all.get("keys")!.get("k1")).toEqual({ id: "k1", hash: "h2" });
    expect(all.get("keys")!.owner("hash", "h1")).toBe("k2");
    expect(all.get("credits")!.size).toBe(1);
  });

  it("judges a commit of one change alone: a taken id or unique key is refused, its own unique key is kept, bad input throws", () => {
    const all = collections();
    expect(() => planCommit(all, [{ op: "insert", collection: "keys", doc: d({ id: "k2", hash: "h9" }) }])).toThrow(UniqueViolationError);
    expect(() => planCommit(all, [{ op: "put", collection: "keys", doc: d({ id: "k3", hash: "h1" }) }])).toThrow(UniqueViolationError);
    expect(() => planCommit(all, [{ op: "insert", collection: "keys", doc: d({ id: "k3", hash: "h2" }) }])).toThrow(UniqueViolationError);
    expect(() => planCommit(all, [{ op: "put", collection: "nope", doc: { id: "x" } }])).toThrow('unknown collection "nope"');
    expect(() => planCommit(all, [{ op: "put", collection: "keys", doc: d({ id: "", hash: "h8" }) }])).toThrow("non-empty string id");
    expect(() => planCommit(all, [{ op: "delete", collection: "keys", id: "" }])).toThrow("non-empty string id");
    expect(planCommit(all, [{ op: "put", collection: "keys", doc: d({ id: "k1", hash: "h1", name: "same hash" }) }])).toEqual([
      { put: "keys", doc: { id: "k1", hash: "h1", name: "same hash" } },
    ]);
    expect(planCommit(all, [{ op: "insert", collection: "keys", doc: d({ id: "k3", hash: "h3" }) }])).toEqual([{ put: "keys", doc: { id: "k3", hash: "h3" } }]);
    expect(planCommit(all, [{ op: "delete", collection: "keys", id: "k1" }])).toEqual([{ del: "keys", id: "k1" }]);
    // Nothing was applied by planning.
    expect(all.get("keys")!.owner("hash", "h1")).toBe("k1");
    expect(all.get("keys")!.size).toBe(2);
  });

  it("copies documents as JSON would: own fields only, undefined fields dropped, nested values copied", () => {
    const all = collections();
    const inherited = Object.assign(Object.create({ fromPrototype: 1 }), { id: "c9", remaining: 3, gone: undefined, nested: { list: [1, undefined] } });
    const [op] = planCommit(all, [{ op: "put", collection: "credits", doc: inherited }]);
    const doc = (op as { doc: Doc }).doc as Doc & Record<string, unknown>;
    expect(doc).toEqual({ id: "c9", remaining: 3, nested: { list: [1, null] } });
    expect(Object.keys(doc)).toEqual(["id", "remaining", "nested"]);
    expect(doc.nested).not.toBe(inherited.nested);
    expect(JSON.stringify(doc)).toBe(JSON.stringify(inherited));
  });
});
