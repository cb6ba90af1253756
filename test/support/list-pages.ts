import { expect } from "vitest";
import type { OperationName, Outcome } from "./operations.js";
import type { ViaClient } from "./vias.js";

/** One page of a v2-style list in plain values whatever the transport: items (int64 as numbers), cursor, hasMore. */
export interface ListPage<T = Record<string, unknown>> {
  items: T[];
  cursor?: string;
  hasMore: boolean;
}

/** A list item of an RPC answer as v2 JSON would show it: no `$typeName`, int64 fields as numbers. */
function plain(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).filter(([field]) => field !== "$typeName").map(([field, value]) => [field, typeof value === "bigint" ? Number(value) : value]),
  );
}

/** The page an outcome carries: v2 `data` and `pagination`, or the RPC message's. Fails on any error. */
export function pageOf<T = Record<string, unknown>>(outcome: Outcome): ListPage<T> {
  if (outcome.via === "v2") {
    expect({ status: outcome.rest.status, error: outcome.rest.body?.error }).toEqual({ status: 200, error: undefined });
    const { data, pagination } = outcome.rest.body;
    return { items: data, ...pagination };
  }
  if (outcome.via === "v1") throw new Error("v2-style lists have no v1 binding");
  if (!outcome.ok) throw new Error(`${outcome.via} call failed: ${outcome.error.message}`);
  const message = outcome.message as { data: Record<string, unknown>[]; pagination: { cursor?: string; hasMore: boolean } };
  return {
    items: message.data.map(plain) as T[],
    ...(message.pagination.cursor !== undefined && { cursor: message.pagination.cursor }),
    hasMore: message.pagination.hasMore,
  };
}

/** Every page of `op` for `input`, following cursors until the last page (at most 20 pages). */
export async function listAll<T = Record<string, unknown>>(client: ViaClient, op: OperationName, input: Record<string, unknown> = {}): Promise<ListPage<T>[]> {
  const pages: ListPage<T>[] = [];
  let cursor: string | undefined;
  do {
    const page = pageOf<T>(await client.call(op, cursor === undefined ? input : { ...input, cursor }));
    pages.push(page);
    cursor = page.cursor;
    if (pages.length > 20) throw new Error("pagination does not end");
  } while (cursor !== undefined);
  return pages;
}

/** The ids of every item over all pages, in order. */
export const idsOf = (pages: ListPage<{ id: string }>[]) => pages.flatMap((page) => page.items.map((item) => item.id));
