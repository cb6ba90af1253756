import { describe, expect, it } from "vitest";
import { createCollection } from "../../src/store/embedded/collection.js";
import { createCommitBatch } from "../../src/store/embedded/journal-batch.js";

const record = (ops: unknown[]) => `${JSON.stringify({ ops })}\n`;

describe("journal commit batch", () => {
  it("writes the batch as one record, each changed document once in its state at take, byte for byte as JSON.stringify", () => {
    const things = createCollection("things");
    const others = createCollection("oth\"ers");
    const batch = createCommitBatch();
    const big = { id: "t2", text: "é€😀".repeat(30_000), n: 1 };
    things.set({ id: "t1", n: 1 } as never);
    void batch.add(things, "t1");
    others.set({ id: "o1" });
    void batch.add(others, "o1");
    things.set(big as never);
    void batch.add(things, "t2");
    things.set({ id: "t1", n: 2 } as never);
    void batch.add(things, "t1");
    things.set({ id: "t3" });
    void batch.add(things, "t3");
    things.remove("t3");
    void batch.add(things, "t3");
    void batch.add(things, "never-stored");
    expect(batch.empty).toBe(false);
    const { data } = batch.take();
    expect(data.toString("utf8")).toBe(
      record([
        { put: "things", doc: { id: "t1", n: 2 } },
        { put: "things", doc: big },
        { del: "things", id: "t3" },
        { del: "things", id: "never-stored" },
        { put: 'oth"ers', doc: { id: "o1" } },
      ]),
    );
    expect(batch.empty).toBe(true);
    batch.release();
  });

  it("a document changed by 50 commits of one batch is written once, as the last commit left it", () => {
    const credits = createCollection("credits");
    const batch = createCommitBatch();
    for (let n = 50; n > 0; n--) {
      credits.set({ id: "k", remaining: n } as never);
      void batch.add(credits, "k");
    }
    expect(batch.take().data.toString()).toBe(record([{ put: "credits", doc: { id: "k", remaining: 1 } }]));
  });

  it("gives a batch's commits one promise, settled once for all, and the next batch another", async () => {
    const things = createCollection("things");
    const batch = createCommitBatch();
    things.set({ id: "a" });
    const a = batch.add(things, "a");
    things.set({ id: "b" });
    const b = batch.add(things, "b");
    expect(a).toBe(b);
    const first = batch.take();
    things.set({ id: "c" });
    const c = batch.add(things, "c");
    expect(c).not.toBe(a);
    first.outcome.resolve();
    await expect(a).resolves.toBeUndefined();
    batch.release();
    const second = batch.take();
    expect(second.data.toString()).toBe(record([{ put: "things", doc: { id: "c" } }]));
    second.outcome.reject(new Error("disk gone"));
    await expect(c).rejects.toThrow("disk gone");
  });

  it("fills a released buffer again without letting a batch being written change", () => {
    const things = createCollection("things");
    const batch = createCommitBatch();
    things.set({ id: "one" });
    void batch.add(things, "one");
    const first = batch.take();
    things.set({ id: "two" });
    void batch.add(things, "two");
    // Until release, the first batch's bytes stay as they were while the next one fills.
    expect(first.data.toString()).toBe(record([{ put: "things", doc: { id: "one" } }]));
    batch.release();
    const second = batch.take();
    expect(second.data.toString()).toBe(record([{ put: "things", doc: { id: "two" } }]));
    batch.release();
    things.set({ id: "three" });
    void batch.add(things, "three");
    expect(batch.take().data.toString()).toBe(record([{ put: "things", doc: { id: "three" } }]));
  });
});
