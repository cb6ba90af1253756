/**
 * What the MongoDB rate-limit stores send to the driver, as pure functions (unit tested without a server in
 * test/store/mongo-ratelimit-filters.test.ts). Override documents carry a derived `pattern: true` when their
 * identifier contains `*`, so a limit call reads its exact override and the namespace's patterns in one indexed
 * query; the field exists only in MongoDB and is dropped on every read.
 */
import { isPattern } from "../../domain/override-match.js";
import type { PageQuery as Page } from "../ports/pages.js";
import type { RatelimitOverrideRecord } from "../ports/ratelimits.js";
import { fromDocument, keysetPage, toDocument, type PageQuery, type StoredDocument } from "./filters.js";

export type StoredOverride = StoredDocument<RatelimitOverrideRecord> & { pattern?: true };

export function toOverrideDocument(record: RatelimitOverrideRecord): StoredOverride {
  const document: StoredOverride = toDocument(record);
  if (isPattern(record.identifier)) document.pattern = true;
  return document;
}

export function fromOverrideDocument(document: StoredOverride): RatelimitOverrideRecord {
  const { pattern: _pattern, ...rest } = document;
  return fromDocument<RatelimitOverrideRecord>(rest);
}

/** A namespace by name within its workspace (the unique {workspaceId, name} index). */
export function namespaceByNameFilter(workspaceId: string, name: string): { workspaceId: string; name: string } {
  return { workspaceId, name };
}

/** A namespace by id within its workspace: one of another workspace is as absent as an unknown one. */
export function namespaceByIdFilter(workspaceId: string, id: string): { _id: string; workspaceId: string } {
  return { _id: id, workspaceId };
}

export interface OverrideIdentifierFilter {
  workspaceId: string;
  namespaceId: string;
  identifier: string;
}

/** The one override of (namespace, identifier), by the unique {workspaceId, namespaceId, identifier} index. */
export function overrideByIdentifierFilter(workspaceId: string, namespaceId: string, identifier: string): OverrideIdentifierFilter {
  return { workspaceId, namespaceId, identifier };
}

/** Changes limit and duration of an existing override; id and createdAt stay. */
export function overrideChangeUpdate(record: RatelimitOverrideRecord): {
  $set: { limit: number; duration: number; updatedAt: number };
} {
  return { $set: { limit: record.limit, duration: record.duration, updatedAt: record.createdAt } };
}

/** The exact override of `identifier` and every pattern of the namespace. */
export function overrideCandidatesFilter(workspaceId: string, namespaceId: string, identifier: string): {
  workspaceId: string;
  namespaceId: string;
  $or: [{ identifier: string }, { pattern: true }];
} {
  return { workspaceId, namespaceId, $or: [{ identifier }, { pattern: true }] };
}

/** The overrides of one namespace: what a list pages and a count counts. */
export function overridesOfNamespaceFilter(workspaceId: string, namespaceId: string): { workspaceId: string; namespaceId: string } {
  return { workspaceId, namespaceId };
}

/** Keyset page of a namespace's overrides, served by the {workspaceId, namespaceId, _id} index. Null for limit < 1. */
export function overridesPageQuery(
  workspaceId: string,
  namespaceId: string,
  page: Page,
): PageQuery<{ workspaceId: string; namespaceId: string }> | null {
  return keysetPage(overridesOfNamespaceFilter(workspaceId, namespaceId), page);
}
