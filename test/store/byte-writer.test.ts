import { describe, expect, it } from "vitest";
import { createByteWriter } from "../../src/store/embedded/byte-writer.js";

describe("byte writer", () => {
  it("holds every text as UTF-8 byte for byte, multi-byte text and texts past the initial room included", () => {
    const writer = createByteWriter();
    const texts = ['{"ops":[]}\n', `{"text":"${"é€😀".repeat(30_000)}"}\n`, "x".repeat(200_000), "", "\n", '{"last":true}'];
    for (const text of texts) writer.write(text);
    expect(writer.bytes().toString("utf8")).toBe(texts.join(""));
    expect(writer.length).toBe(Buffer.byteLength(texts.join("")));
  });

  it("starts empty again after reset, also after growing past 1 MiB for one large batch", () => {
    const writer = createByteWriter();
    writer.write("y".repeat(3 << 20));
    expect(writer.length).toBe(3 << 20);
    writer.reset();
    expect(writer.length).toBe(0);
    expect(writer.bytes().length).toBe(0);
    writer.write("after");
    expect(writer.bytes().toString()).toBe("after");
  });
});
