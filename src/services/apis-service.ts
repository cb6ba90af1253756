import type { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import type { Clock } from "../domain/clock.js";
import { KeywardError, notFound } from "../domain/errors.js";
import { newId, type RandomBytes } from "../domain/ids.js";
import type { ApiRecord, DocumentStore } from "../store/ports.js";
import { authorize, type ServiceHandlers } from "./context.js";

export interface ApisServiceDeps {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
  /** Whether recoverable keys can be stored: decides the default of `storeEncryptedKeys`. */
  encryptionConfigured: boolean;
}

/** apis.*: create, read, soft-delete apis, and list their keys. */
export function createApisService(deps: ApisServiceDeps): ServiceHandlers<typeof ApisService> {
  const { documents, clock } = deps;

  async function loadApi(workspaceId: string, apiId: string): Promise<ApiRecord> {
    const api = await documents.apis.get(workspaceId, apiId);
    if (!api) throw notFound(`The api ${apiId} does not exist.`);
    return api;
  }

  return {
    async createApi(request, { principal }) {
      authorize(principal, { resourceType: "api", action: "create_api" });
      const now = clock.now();
      const api: ApiRecord = {
        id: newId("api", now, deps.randomBytes),
        workspaceId: principal.workspaceId,
        name: request.name,
        createdAt: now,
        deleteProtection: request.deleteProtection ?? false,
        storeEncryptedKeys: request.storeEncryptedKeys ?? deps.encryptionConfigured,
      };
      await documents.apis.insert(api);
      return { apiId: api.id };
    },

    async getApi(request, { principal }) {
      authorize(principal, { resourceType: "api", action: "read_api", resourceId: request.apiId });
      const api = await loadApi(principal.workspaceId, request.apiId);
      return { id: api.id, name: api.name, workspaceId: api.workspaceId };
    },

    async deleteApi(request, { principal }) {
      authorize(principal, { resourceType: "api", action: "delete_api", resourceId: request.apiId });
      const api = await loadApi(principal.workspaceId, request.apiId);
      if (api.deleteProtection) {
        throw new KeywardError("precondition", `The api ${api.id} is protected from deletion.`, {
          reason: "DELETE_PROTECTED",
        });
      }
      // A concurrent delete may win between load and write: then this one reports what the caller would see next.
      if (!(await documents.apis.markDeleted(principal.workspaceId, api.id, clock.now()))) {
        throw notFound(`The api ${api.id} does not exist.`);
      }
      return {};
    },

    async listKeys(request, { principal }) {
      authorize(principal, { resourceType: "api", action: "read_key", resourceId: request.apiId });
      await loadApi(principal.workspaceId, request.apiId);
      // Keys arrive with the keys issue; until then every api has none.
      return { data: [], pagination: { hasMore: false }, total: 0n };
    },
  };
}
