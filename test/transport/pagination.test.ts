import { describe, expect, it } from "vitest";
import { KeywardError } from "../../src/domain/errors.js";
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, paginate } from "../../src/services/pagination.js";

const rows = Array.from({ length: 7 }, (_, i) => ({ id: `key_${"1".repeat(21)}${"23456789"[i]}` }));

/** A fetch over `rows` honouring the page query, recording each query it receives. */
function source() {
  const queries: { limit: number; after?: string }[] = [];
  const fetch = async (page: { limit: number; after?: string }) => {
    queries.push(page);
    return rows.filter((r) => page.after === undefined || r.id > page.after).slice(0, page.limit);
  };
  return { queries, fetch };
}

function invalidCursor(cursor: string): KeywardError {
  try {
    decodeCursor(cursor);
  } catch (error) {
    return error as KeywardError;
  }
  throw new Error(`cursor ${cursor} was accepted`);
}

describe("cursors", () => {
  it("round-trip an id through an opaque base64url string", () => {
    for (const row of rows) {
      const cursor = encodeCursor(row.id);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(cursor).not.toContain(row.id);
      expect(decodeCursor(cursor)).toBe(row.id);
    }
  });

  it("treat an absent or empty cursor as the start", () => {
    expect(decodeCursor(undefined)).toBeUndefined();
    expect(decodeCursor("")).toBeUndefined();
  });

  it("refuse cursors this service never issued as invalid, located at `cursor`", () => {
    for (const cursor of ["not-a-cursor", encodeCursor("../../etc/passwd"), encodeCursor("key_0OIl"), encodeCursor("KEY_abc"), "%%%"]) {
      const error = invalidCursor(cursor);
      expect(error).toBeInstanceOf(KeywardError);
      expect(error.kind).toBe("invalid");
      expect(error.violations).toEqual([{ location: "cursor", message: "malformed cursor" }]);
    }
  });
});

describe("paginate", () => {
  it("asks for one more than the limit and walks every row exactly once across pages", async () => {
    const { queries, fetch } = source();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await paginate({ limit: 3, cursor }, fetch);
      seen.push(...page.items.map((r) => r.id));
      expect(page.hasMore).toBe(page.cursor !== undefined);
      cursor = page.cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(rows.map((r) => r.id));
    expect(pages).toBe(3);
    expect(queries).toEqual([
      { limit: 4, after: undefined },
      { limit: 4, after: rows[2].id },
      { limit: 4, after: rows[5].id },
    ]);
  });

  it("reports no more pages and no cursor when the last page is exactly full", async () => {
    const page = await paginate({ limit: 7 }, source().fetch);
    expect(page).toEqual({ items: rows, hasMore: false, cursor: undefined });
  });

  it("defaults the page size to 100", async () => {
    const { queries, fetch } = source();
    await paginate({}, fetch);
    expect(DEFAULT_PAGE_SIZE).toBe(100);
    expect(queries).toEqual([{ limit: 101, after: undefined }]);
  });

  it("rejects a malformed cursor before fetching", async () => {
    const { queries, fetch } = source();
    await expect(paginate({ cursor: "bogus!" }, fetch)).rejects.toMatchObject({ kind: "invalid" });
    expect(queries).toEqual([]);
  });
});
