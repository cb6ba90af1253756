import { describe, expect, it } from "vitest";
import { createLineBatch } from "../../src/store/embedded/journal-batch.js";

describe("journal line batch", () => {
  it("holds each line and its newline byte for byte, multi-byte text and lines past the initial room included", () => {
    const batch = createLineBatch();
    const lines = ['{"ops":[]}', `{"text":"${"é€😀".repeat(30_000)}"}`, "x".repeat(200_000), '{"last":true}'];
    for (const line of lines) void batch.add(line);
    expect(batch.empty).toBe(false);
    const { data } = batch.take();
    expect(data.toString("utf8")).toBe(lines.map((l) => `${l}\n`).join(""));
    expect(batch.empty).toBe(true);
    batch.release();
  });

  it("gives a batch's commits one promise, settled once for all, and the next batch another", async () => {
    const batch = createLineBatch();
    const a = batch.add("a");
    const b = batch.add("b");
    expect(a).toBe(b);
    const first = batch.take();
    const c = batch.add("c");
    expect(c).not.toBe(a);
    first.outcome.resolve();
    await expect(a).resolves.toBeUndefined();
    batch.release();
    const second = batch.take();
    expect(second.data.toString()).toBe("c\n");
    second.outcome.reject(new Error("disk gone"));
    await expect(c).rejects.toThrow("disk gone");
  });

  it("fills a released buffer again without letting a batch being written change", () => {
    const batch = createLineBatch();
    void batch.add("one");
    const first = batch.take();
    void batch.add("two");
    // Until release, the first batch's bytes stay as they were while the next one fills.
    expect(first.data.toString()).toBe("one\n");
    batch.release();
    const second = batch.take();
    expect(second.data.toString()).toBe("two\n");
    batch.release();
    void batch.add("three");
    expect(batch.take().data.toString()).toBe("three\n");
  });
});
