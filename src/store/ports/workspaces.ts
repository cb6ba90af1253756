import type { PageQuery } from "./pages.js";

export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface WorkspaceStore {
  get(id: string): Promise<WorkspaceRecord | undefined>;
  /** All workspaces, ascending by id (the first is the installation's default workspace). */
  list(page: PageQuery): Promise<WorkspaceRecord[]>;
}
