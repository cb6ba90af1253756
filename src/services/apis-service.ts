import type { KeySearch } from "../store/key-search.js";
import type { ApisService } from "../../gen/keyward/v1/apis_pb.js";
import type { Clock } from "../domain/clock.js";
import { invalid, KeywardError, notFound } from "../domain/errors.js";
import { newId, type RandomBytes } from "../domain/ids.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { KeySchema } from "../../gen/keyward/v1/keys_pb.js";
import type { ApiRecord } from "../store/ports/apis.js";
import type { CounterStore } from "../store/ports/counters.js";
import type { DocumentStore } from "../store/ports/documents.js";
import type { VerificationEventStore } from "../store/ports/events.js";
import type { KeyRecord } from "../store/ports/key-records.js";
import type { KeyCache } from "./key-cache.js";
import { encodeCursor, paginate } from "./pagination.js";
import { deleteApiKeys } from "./keys/delete-api-keys.js";
import { replaceWithRetry } from "./replace-with-retry.js";
import { apiView, applyApiUpdate } from "./api-settings.js";
import { authorize, listableIds, type ServiceHandlers } from "./context.js";

export interface ApisServiceDeps {
  documents: DocumentStore;
  /** Credit balances, deleted with their keys (apis.deleteKeys). */
  counters: CounterStore;
  clock: Clock;
  randomBytes: RandomBytes;
  /** Whether recoverable keys can be stored: decides the default of `storeEncryptedKeys`. */
  encryptionConfigured: boolean;
  /** A key as management calls show it (the keys service owns that view). */
  viewKey: (key: KeyRecord, options: { decrypt: boolean; lastUsed?: ReadonlyMap<string, number> }) => Promise<MessageInitShape<typeof KeySchema>>;
  /** Where the keys' last verification times are read: one lookup per listed page. */
  events: Pick<VerificationEventStore, "lastUsed">;
  /** The verification cache: it holds each key with its api, so deleting an api (or its keys) must drop them. */
  cache: Pick<KeyCache, "invalidate">;
}

/** apis.*: create, read, list, change the settings of and soft-delete apis, and list and delete their keys. */
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
      return apiView(api);
    },

    async updateApi(request, { principal }) {
      authorize(principal, { resourceType: "api", action: "update_api", resourceId: request.apiId });
      const api = await loadApi(principal.workspaceId, request.apiId);
      // Checked (and a bad entry refused) before anything is written; rerun on a fresh read if another write won.
      applyApiUpdate(api, request, clock.now());
      const updated = await replaceWithRetry({
        read: api,
        reload: () => documents.apis.get(principal.workspaceId, api.id),
        change: (current) => applyApiUpdate(current, request, clock.now()),
        replace: (next) => documents.apis.replace(next),
        subject: `The api ${api.id}`,
      });
      if (!updated) throw notFound(`The api ${api.id} does not exist.`);
      // The verification cache holds each key with its api (allow-list included): every instance drops them.
      deps.cache.invalidate({ kind: "all" });
      return apiView(updated);
    },

    async listApis(request, { principal }) {
      // A root key granted only some apis lists exactly those: the store narrows the page to their ids.
      const ids = listableIds(principal, "api", "read_api");
      const page = await paginate(request, (p) => documents.apis.list(principal.workspaceId, { ...p, search: request.search, ids }));
      return {
        data: page.items.map((api) => ({ id: api.id, name: api.name, workspaceId: api.workspaceId, createdAt: BigInt(api.createdAt) })),
        pagination: { cursor: page.cursor, hasMore: page.hasMore },
      };
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
      // Its keys answer NOT_FOUND from now on, here and (over the bus) on every other instance. Deleting an api is
      // rare, so dropping the whole cache beats listing its keys.
      deps.cache.invalidate({ kind: "all" });
      return {};
    },

    async listKeys(request, { principal }) {
      authorize(principal, { resourceType: "api", action: "read_key", resourceId: request.apiId });
      const api = await loadApi(principal.workspaceId, request.apiId);
      if (request.decrypt) authorize(principal, { resourceType: "api", action: "decrypt_key", resourceId: api.id });
      // v2 filters by externalId, v1 by ownerId: both name the identity.
      const externalId = request.externalId ?? request.ownerId;
      const identity = externalId === undefined ? undefined : await documents.identities.findByExternalId(principal.workspaceId, externalId);
      if (externalId !== undefined && !identity) return { data: [], pagination: { hasMore: false }, total: 0n };
      const filter = { identityId: identity?.id, search: await keySearchOf(principal.workspaceId, request.search) };
      const start = request.offset ? { ...request, cursor: await skipKeys(principal.workspaceId, api.id, filter, request) } : request;
      const page = await paginate(start, (p) => documents.keys.listByApi(principal.workspaceId, api.id, { ...p, ...filter }));
      const total = await documents.keys.countByApi(principal.workspaceId, api.id, filter);
      const lastUsed = await deps.events.lastUsed(principal.workspaceId, page.items.map((key) => key.id));
      const data = await Promise.all(page.items.map((key) => deps.viewKey(key, { decrypt: request.decrypt ?? false, lastUsed })));
      return { data, pagination: { cursor: page.cursor, hasMore: page.hasMore }, total: BigInt(total) };
    },

    deleteKeys: (request, { principal }) => deleteApiKeys(deps, principal, request),
  };

  /**
   * The search of listKeys: its text, and the identities whose external id holds it (the first 100 such; a search
   * that broad finds keys by their own fields anyway).
   */
  async function keySearchOf(workspaceId: string, text: string | undefined): Promise<KeySearch | undefined> {
    if (text === undefined) return undefined;
    const identities = await documents.identities.search(workspaceId, text, { limit: 100 });
    return { text, identityIds: identities.map((identity) => identity.id) };
  }

  /**
   * Legacy offset paging (Unkey's GET /v1/apis/{apiId}/keys): walks past `offset` keys in keyset pages and answers
   * the cursor that continues after them (undefined when fewer keys exist). The offset is bounded (proto: at most
   * 100000), so the walk is too. Offset and cursor are two ways to say where to start: both is a 400.
   */
  async function skipKeys(workspaceId: string, apiId: string, filter: { identityId?: string; search?: KeySearch }, request: { offset?: number; cursor?: string }) {
    if (request.cursor) throw invalid("offset and cursor cannot be combined; send one.", [{ location: "offset", message: "not with cursor" }]);
    let toSkip = request.offset ?? 0;
    let after: string | undefined;
    while (toSkip > 0) {
      const page = await documents.keys.listByApi(workspaceId, apiId, { limit: Math.min(toSkip, 1000), after, ...filter });
      if (page.length === 0) break;
      after = page[page.length - 1].id;
      toSkip -= page.length;
    }
    return after === undefined ? undefined : encodeCursor(after);
  }
}
