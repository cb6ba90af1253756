import type { NamedPageQuery, PageQuery } from "./pages.js";

/** A standalone rate-limit namespace; created on first use, its name unique among a workspace's namespaces. */
export interface RatelimitNamespaceRecord {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: number;
}

/** A per-identifier limit of one namespace; `identifier` is exact, or a pattern when it contains `*`. */
export interface RatelimitOverrideRecord {
  id: string;
  workspaceId: string;
  namespaceId: string;
  identifier: string;
  limit: number;
  /** Window length, ms. */
  duration: number;
  createdAt: number;
  updatedAt?: number;
}

export interface RatelimitNamespaceStore {
  /** UniqueViolationError when the workspace already has a namespace of this name (a concurrent first use). */
  insert(record: RatelimitNamespaceRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<RatelimitNamespaceRecord | undefined>;
  findByName(workspaceId: string, name: string): Promise<RatelimitNamespaceRecord | undefined>;
  /** Namespaces of a workspace, ascending by id, narrowed by `page.search` and `page.ids`. */
  list(workspaceId: string, page: NamedPageQuery): Promise<RatelimitNamespaceRecord[]>;
}

export interface RatelimitOverrideStore {
  /**
   * Creates the override of (namespace, identifier), or changes limit and duration of the one that exists (which
   * keeps its id and createdAt). Atomic: concurrent sets of one identifier leave one override. Returns it.
   */
  set(record: RatelimitOverrideRecord): Promise<RatelimitOverrideRecord>;
  /** The override whose identifier is exactly `identifier` (patterns are matched as text here). */
  get(workspaceId: string, namespaceId: string, identifier: string): Promise<RatelimitOverrideRecord | undefined>;
  /** What can apply to `identifier`: its exact override, if any, and every pattern override of the namespace. */
  candidates(workspaceId: string, namespaceId: string, identifier: string): Promise<RatelimitOverrideRecord[]>;
  /** Removes the override; false when there was none. */
  delete(workspaceId: string, namespaceId: string, identifier: string): Promise<boolean>;
  /** Overrides of a namespace, ascending by id. */
  list(workspaceId: string, namespaceId: string, page: PageQuery): Promise<RatelimitOverrideRecord[]>;
  count(workspaceId: string, namespaceId: string): Promise<number>;
}
