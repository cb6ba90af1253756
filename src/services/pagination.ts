import { invalid } from "../domain/errors.js";

export const DEFAULT_PAGE_SIZE = 100;

/** Cursors are opaque to callers: base64url of the last id seen. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[a-z]+_[1-9A-HJ-NP-Za-km-z]+$/.test(id)) {
    throw invalid("The cursor is not one this service issued.", [{ location: "cursor", message: "malformed cursor" }]);
  }
  return id;
}

/**
 * Fetches one row more than asked to learn whether another page exists; returns the page and the cursor that
 * continues after it.
 */
export async function paginate<T extends { id: string }>(
  request: { limit?: number; cursor?: string },
  fetch: (page: { limit: number; after?: string }) => Promise<T[]>,
): Promise<{ items: T[]; cursor?: string; hasMore: boolean }> {
  const limit = request.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await fetch({ limit: limit + 1, after: decodeCursor(request.cursor) });
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { items, hasMore, cursor: hasMore ? encodeCursor(items[items.length - 1].id) : undefined };
}
