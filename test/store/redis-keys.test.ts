import calculateSlot from "cluster-key-slot";
import { describe, expect, it } from "vitest";
import { counterKey, counterTagFor, hashedPart, keyUnder, tagPrefix } from "../../src/store/redis/keys.js";

describe("counterKey", () => {
  it("lays a key out as <prefix>:{<tag>}:<parts>", () => {
    expect(counterKey({ prefix: "kw", tag: "key_3ZkP", parts: ["rl", "default", 1700000000000] })).toBe(
      "kw:{key_3ZkP}:rl:default:1700000000000",
    );
    expect(counterKey({ prefix: "kw:test", tag: "id_9", parts: ["credits"] })).toBe("kw:test:{id_9}:credits");
  });

  it("puts every counter of one tag in the same cluster slot", () => {
    const keys = [
      counterKey({ prefix: "kw", tag: "id_42", parts: ["credits"] }),
      counterKey({ prefix: "kw", tag: "id_42", parts: ["rl", "default", 1700000000000] }),
      counterKey({ prefix: "kw", tag: "id_42", parts: ["rl", "tokens:{x}", 1700000060000] }),
      counterKey({ prefix: "other-deploy", tag: "id_42", parts: ["rl", "a"] }),
    ];
    expect(keys.map(hashedPart)).toEqual(["id_42", "id_42", "id_42", "id_42"]);
    const slot = calculateSlot("id_42");
    expect(keys.map((key) => calculateSlot(key))).toEqual([slot, slot, slot, slot]);
  });

  it("escapes : % { } so user-chosen names cannot collide or break out of the tag", () => {
    const a = counterKey({ prefix: "kw", tag: "k", parts: ["rl", "a:b"] });
    const b = counterKey({ prefix: "kw", tag: "k", parts: ["rl", "a", "b"] });
    expect(a).toBe("kw:{k}:rl:a%3Ab");
    expect(b).toBe("kw:{k}:rl:a:b");
    expect(counterKey({ prefix: "kw", tag: "k", parts: ["100%3A"] })).toBe("kw:{k}:100%253A");
    const braced = counterKey({ prefix: "kw", tag: "a}b{c", parts: ["x}"] });
    expect(braced).toBe("kw:{a%7Db%7Bc}:x%7D");
    expect(hashedPart(braced)).toBe("a%7Db%7Bc");
  });

  it("keeps empty string parts distinct from missing parts", () => {
    expect(counterKey({ prefix: "kw", tag: "k", parts: ["a", ""] })).toBe("kw:{k}:a:");
    expect(counterKey({ prefix: "kw", tag: "k", parts: ["a"] })).toBe("kw:{k}:a");
  });

  it("rejects an empty tag, a bad prefix, no parts and non-finite numbers", () => {
    expect(() => counterKey({ prefix: "kw", tag: "", parts: ["x"] })).toThrow(TypeError);
    expect(() => counterKey({ prefix: "", tag: "k", parts: ["x"] })).toThrow(/prefix/);
    expect(() => counterKey({ prefix: "k{w}", tag: "k", parts: ["x"] })).toThrow(/prefix/);
    expect(() => counterKey({ prefix: "kw", tag: "k", parts: [] })).toThrow(/at least one part/);
    expect(() => counterKey({ prefix: "kw", tag: "k", parts: [Number.NaN] })).toThrow(/finite/);
  });
});

describe("tagPrefix", () => {
  it("is the shared start of every key of the tag", () => {
    const prefix = tagPrefix({ prefix: "kw", tag: "key_1" });
    expect(prefix).toBe("kw:{key_1}");
    expect(counterKey({ prefix: "kw", tag: "key_1", parts: ["credits"] }).startsWith(`${prefix}:`)).toBe(true);
  });
});

describe("counterTagFor", () => {
  it("uses the identity when the key has one, else the key", () => {
    expect(counterTagFor({ keyId: "key_1", identityId: "id_7" })).toBe("id_7");
    expect(counterTagFor({ keyId: "key_1" })).toBe("key_1");
    expect(counterTagFor({ keyId: "key_1", identityId: null })).toBe("key_1");
  });
});

describe("hashedPart", () => {
  it("follows Redis Cluster's rule for missing, empty and unclosed tags", () => {
    expect(hashedPart("plain")).toBe("plain");
    expect(hashedPart("a{}b")).toBe("a{}b");
    expect(hashedPart("a{b")).toBe("a{b");
    expect(hashedPart("a{b}c{d}")).toBe("b");
  });
});

describe("keyUnder", () => {
  it("equals counterKey for the same prefix, tag and parts, and extends by a number like a further part", () => {
    const cases = [
      { prefix: "kw", tag: "key_3ZkP", parts: ["rl", "default", 60_000, 1700000000000] },
      { prefix: "kw:test", tag: "a}b{c", parts: ["rl", "tokens:{x}", 86_400_000] },
      { prefix: "kw", tag: "id_42", parts: ["credits", "key_1"] },
    ];
    for (const input of cases) {
      expect(keyUnder(tagPrefix(input), input.parts)).toBe(counterKey(input));
      expect(`${keyUnder(tagPrefix(input), input.parts)}:${1700000060000}`).toBe(counterKey({ ...input, parts: [...input.parts, 1700000060000] }));
    }
    expect(() => keyUnder("kw:{k}", [])).toThrow(TypeError);
  });
});
