import type { RootKeysService } from "../../gen/keyward/v1/root_keys_pb.js";
import type { Clock } from "../domain/clock.js";
import { KeywardError, invalid, notFound } from "../domain/errors.js";
import { newId, type RandomBytes } from "../domain/ids.js";
import { hashKey, newSecret, ROOT_KEY_BYTES, ROOT_KEY_PREFIX } from "../domain/key-material.js";
import { beyondGrants, isCataloguePermission } from "../domain/permissions.js";
import type { DocumentStore } from "../store/ports/documents.js";
import type { RootKeyRecord } from "../store/ports/root-keys.js";
import { authorize, type Principal, type ServiceHandlers } from "./context.js";
import { paginate } from "./pagination.js";
import type { Invalidation } from "../store/invalidation-bus.js";

export interface RootKeysServiceDeps {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
  /** Authentication's cache of live root keys: a deleted key leaves it on every instance. */
  rootKeyCache: { invalidate(message: Invalidation): void };
}

/** Refuses permissions outside the catalogue (400) and any the caller does not hold itself (403). */
export function checkGrantable(principal: Principal, permissions: readonly string[]): string[] {
  const unique = [...new Set(permissions)];
  const unknown = unique.filter((p) => !isCataloguePermission(p));
  if (unknown.length > 0) {
    throw invalid(`Unknown permission: ${unknown.join(", ")}`, unknown.map((p) => ({
      location: `permissions[${permissions.indexOf(p)}]`,
      message: `"${p}" is not in the permission catalogue`,
    })));
  }
  const beyond = beyondGrants(principal.permissions, unique);
  if (beyond.length > 0) {
    throw new KeywardError("forbidden", `Cannot grant permissions the root key does not hold: ${beyond.join(", ")}`, {
      reason: "INSUFFICIENT_PERMISSIONS",
    });
  }
  return unique;
}

/** Builds a root key record and its one-time secret. */
export function mintRootKey(options: {
  workspaceId: string;
  permissions: string[];
  name?: string;
  expiresAt?: number;
  /** An operator-chosen secret (KEYWARD_ROOT_KEY); otherwise a fresh one is made. */
  key?: string;
  now: number;
  randomBytes: RandomBytes;
}): { record: RootKeyRecord; key: string } {
  const secret = options.key === undefined
    ? newSecret({ prefix: ROOT_KEY_PREFIX, byteLength: ROOT_KEY_BYTES, randomBytes: options.randomBytes })
    : { key: options.key, hash: hashKey(options.key), start: options.key.slice(0, ROOT_KEY_PREFIX.length + 5) };
  const record: RootKeyRecord = {
    id: newId("key", options.now, options.randomBytes),
    workspaceId: options.workspaceId,
    hash: secret.hash,
    start: secret.start,
    permissions: options.permissions,
    createdAt: options.now,
    ...(options.name !== undefined && { name: options.name }),
    ...(options.expiresAt !== undefined && { expiresAt: options.expiresAt }),
  };
  return { record, key: secret.key };
}

/** rootKeys.*: root keys of the caller's own workspace. */
export function createRootKeysService(deps: RootKeysServiceDeps): ServiceHandlers<typeof RootKeysService> {
  const { documents, clock } = deps;
  return {
    async createRootKey(request, { principal }) {
      authorize(principal, { resourceType: "rootkey", action: "create_root_key" });
      const permissions = checkGrantable(principal, request.permissions);
      const { record, key } = mintRootKey({
        workspaceId: principal.workspaceId,
        permissions,
        name: request.name,
        expiresAt: request.expires === undefined ? undefined : Number(request.expires),
        now: clock.now(),
        randomBytes: deps.randomBytes,
      });
      await documents.rootKeys.insert(record);
      return { keyId: record.id, key };
    },

    async listRootKeys(request, { principal }) {
      authorize(principal, { resourceType: "rootkey", action: "read_root_key" });
      const page = await paginate(request, (p) => documents.rootKeys.list(principal.workspaceId, p));
      return {
        data: page.items.map((k) => ({
          keyId: k.id,
          name: k.name,
          start: k.start,
          permissions: k.permissions,
          createdAt: BigInt(k.createdAt),
          expires: k.expiresAt === undefined ? undefined : BigInt(k.expiresAt),
        })),
        pagination: { cursor: page.cursor, hasMore: page.hasMore },
      };
    },

    async deleteRootKey(request, { principal }) {
      authorize(principal, { resourceType: "rootkey", action: "delete_root_key" });
      const record = await documents.rootKeys.get(principal.workspaceId, request.keyId);
      if (!record || !(await documents.rootKeys.markDeleted(principal.workspaceId, request.keyId, clock.now()))) {
        throw notFound(`The root key ${request.keyId} does not exist.`);
      }
      deps.rootKeyCache.invalidate({ kind: "hash", hash: record.hash });
      return {};
    },
  };
}
