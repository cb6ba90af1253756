import type { RatelimitNamespaceRecord, RatelimitNamespaceStore, RatelimitOverrideRecord, RatelimitOverrideStore } from "../ports/ratelimits.js";
import { isPattern } from "../../domain/override-match.js";
import type { CollectionSpec, Journal } from "./journal.js";
import { scanNamed } from "./named-pages.js";
import { countIndexed, liveOf } from "./owned.js";

const NAMESPACES = "ratelimit_namespaces";
const OVERRIDES = "ratelimit_overrides";

/** Named after the fields they cover, as the MongoDB adapter names its compound indexes in UniqueViolationError. */
const NAMESPACE_NAME = "workspaceId,name";
const OVERRIDE_IDENTIFIER = "workspaceId,namespaceId,identifier";

// JSON arrays keep the parts apart whatever characters names and identifiers hold.
const nameKey = (workspaceId: string, name: string) => JSON.stringify([workspaceId, name]);
const namespaceKey = (workspaceId: string, namespaceId: string) => JSON.stringify([workspaceId, namespaceId]);
const identifierKey = (workspaceId: string, namespaceId: string, identifier: string) =>
  JSON.stringify([workspaceId, namespaceId, identifier]);

export const ratelimitNamespacesCollection: CollectionSpec = {
  unique: { [NAMESPACE_NAME]: (d) => nameKey(d.workspaceId, d.name) },
  indexes: { workspace: (d) => d.workspaceId },
};

/** Overrides by namespace (lists, counts) and, separately, the namespace's patterns (what a limit call scans). */
export const ratelimitOverridesCollection: CollectionSpec = {
  unique: { [OVERRIDE_IDENTIFIER]: (d) => identifierKey(d.workspaceId, d.namespaceId, d.identifier) },
  indexes: {
    namespace: (d) => namespaceKey(d.workspaceId, d.namespaceId),
    patterns: (d) => (isPattern(d.identifier) ? namespaceKey(d.workspaceId, d.namespaceId) : undefined),
  },
};

/** RatelimitNamespaceStore over a journal holding `ratelimitNamespacesCollection` as "ratelimit_namespaces". */
export function ratelimitNamespaceStoreOver(journal: Journal): RatelimitNamespaceStore {
  return {
    insert: (record) => journal.commit([{ op: "insert", collection: NAMESPACES, doc: record }]),
    get: async (workspaceId, id) => liveOf<RatelimitNamespaceRecord>(journal, NAMESPACES, workspaceId, id),
    findByName: async (workspaceId, name) =>
      journal.findUnique<RatelimitNamespaceRecord>(NAMESPACES, NAMESPACE_NAME, nameKey(workspaceId, name)),
    list: async (workspaceId, page) => scanNamed<RatelimitNamespaceRecord>(journal, NAMESPACES, "workspace", workspaceId, page),
  };
}

/**
 * RatelimitOverrideStore over a journal holding `ratelimitOverridesCollection` as "ratelimit_overrides". Each write
 * reads and commits in one synchronous stretch, so concurrent sets and deletes of one identifier serialise.
 */
export function ratelimitOverrideStoreOver(journal: Journal): RatelimitOverrideStore {
  const find = (workspaceId: string, namespaceId: string, identifier: string) =>
    journal.findUnique<RatelimitOverrideRecord>(OVERRIDES, OVERRIDE_IDENTIFIER, identifierKey(workspaceId, namespaceId, identifier));

  return {
    async set(record) {
      const existing = find(record.workspaceId, record.namespaceId, record.identifier);
      const stored: RatelimitOverrideRecord = existing
        ? { ...existing, limit: record.limit, duration: record.duration, updatedAt: record.createdAt }
        : record;
      await journal.commit([{ op: existing ? "put" : "insert", collection: OVERRIDES, doc: stored }]);
      return stored;
    },
    get: async (workspaceId, namespaceId, identifier) => find(workspaceId, namespaceId, identifier),
    async candidates(workspaceId, namespaceId, identifier) {
      const exact = find(workspaceId, namespaceId, identifier);
      const patterns = journal.scan<RatelimitOverrideRecord>(OVERRIDES, {
        index: { name: "patterns", value: namespaceKey(workspaceId, namespaceId) },
      });
      return exact && !isPattern(exact.identifier) ? [exact, ...patterns] : patterns;
    },
    async delete(workspaceId, namespaceId, identifier) {
      const existing = find(workspaceId, namespaceId, identifier);
      if (!existing) return false;
      await journal.commit([{ op: "delete", collection: OVERRIDES, id: existing.id }]);
      return true;
    },
    list: async (workspaceId, namespaceId, page) =>
      journal.scan<RatelimitOverrideRecord>(OVERRIDES, {
        index: { name: "namespace", value: namespaceKey(workspaceId, namespaceId) },
        after: page.after,
        limit: page.limit,
      }),
    count: async (workspaceId, namespaceId) =>
      countIndexed<RatelimitOverrideRecord>(journal, OVERRIDES, { name: "namespace", value: namespaceKey(workspaceId, namespaceId) }, () => true),
  };
}
