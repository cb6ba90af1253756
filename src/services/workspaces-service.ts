import type { WorkspacesService } from "../../gen/keyward/v1/workspaces_pb.js";
import type { Clock } from "../domain/clock.js";
import { newId, type RandomBytes } from "../domain/ids.js";
import { allPermissions } from "../domain/permissions.js";
import type { DocumentStore } from "../store/ports/documents.js";
import { authorize, type ServiceHandlers } from "./context.js";
import { mintRootKey } from "./root-keys-service.js";

export interface WorkspacesServiceDeps {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
}

/** Creates a workspace with a first root key holding every permission; returns that key once. */
export async function createWorkspaceWithRootKey(
  deps: WorkspacesServiceDeps,
  options: { name: string; rootKeyName?: string; key?: string },
) {
  const now = deps.clock.now();
  const workspace = { id: newId("ws", now, deps.randomBytes), name: options.name, createdAt: now };
  const { record, key } = mintRootKey({
    workspaceId: workspace.id,
    permissions: allPermissions(),
    name: options.rootKeyName,
    key: options.key,
    now,
    randomBytes: deps.randomBytes,
  });
  await deps.documents.createWorkspace(workspace, record);
  return { workspace, rootKey: { keyId: record.id, key } };
}

/** workspaces.*: new tenants of this Keyward installation. */
export function createWorkspacesService(deps: WorkspacesServiceDeps): ServiceHandlers<typeof WorkspacesService> {
  return {
    async createWorkspace(request, { principal }) {
      authorize(principal, { resourceType: "workspace", action: "create_workspace" });
      const { workspace, rootKey } = await createWorkspaceWithRootKey(deps, { name: request.name });
      return { workspaceId: workspace.id, rootKey };
    },
  };
}
