import { describe, expect, it } from "vitest";
import { createSortedIds } from "../../src/store/embedded/sorted-ids.js";

describe("embedded sorted ids", () => {
  const ids = createSortedIds();
  for (const id of ["b", "d", "a", "c", "e"]) ids.add(id);

  it("walks ascending after an id, and descending before one (keyset pages both ways)", () => {
    expect([...ids.from(undefined)]).toEqual(["a", "b", "c", "d", "e"]);
    expect([...ids.from("b")]).toEqual(["c", "d", "e"]);
    expect([...ids.downFrom(undefined)]).toEqual(["e", "d", "c", "b", "a"]);
    expect([...ids.downFrom("c")]).toEqual(["b", "a"]);
    // An id not in the list (a record deleted since its page was read) still bounds the walk.
    expect([...ids.downFrom("cc")]).toEqual(["c", "b", "a"]);
    expect([...ids.downFrom("0")]).toEqual([]);
    expect([...ids.downFrom("z")]).toEqual(["e", "d", "c", "b", "a"]);
    expect([...ids.downFrom("a")]).toEqual([]);
  });
});
