import type { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { encryptKey } from "../../domain/key-encryption.js";
import { KeywardError, invalid, notFound } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import { newSecret } from "../../domain/key-material.js";
import { counterTag } from "../../domain/verification.js";
import type { KeyRecord } from "../../store/ports/key-records.js";
import { authorize, type Principal, type ServiceHandlers } from "../context.js";
import { dropUndefined } from "./key-input.js";
import { checkSettings, keyTemplate, resolvedLinks } from "./key-settings.js";
import { balanceOf, loadKeyFor, refillAt, viewKey, withCounters, type KeysDeps } from "./key-context.js";
import { createVerifier } from "./verify-key.js";
import { DEFAULT_KEY_BYTES } from "../api-settings.js";
import { createKeyRbacHandlers } from "./key-rbac.js";
import { createKeyUpdater } from "./update-key.js";
import { updateKeyWithRetry } from "./update-key-with-retry.js";
import { deleteKeyRecord } from "./delete-key.js";
import { createMigrationHandlers } from "./migration-handlers.js";
import type { MigrationScheduler } from "./migration-runner.js";

/** keys.*: the key lifecycle and verification. */
export function createKeysService(deps: KeysDeps & { migrations?: MigrationScheduler }): ServiceHandlers<typeof KeysService> {
  const { documents, counters, clock, cache } = deps;
  const verifier = createVerifier(deps);
  const updateKey = createKeyUpdater(deps);

  function checkRecoverable(principal: Principal, apiId: string, storeEncryptedKeys: boolean) {
    if (!deps.encryptionKey) {
      throw new KeywardError("precondition", "Recoverable keys need KEYWARD_ENCRYPTION_KEY to be configured.");
    }
    if (!storeEncryptedKeys) throw new KeywardError("precondition", `The api ${apiId} does not store encrypted keys.`);
    authorize(principal, { resourceType: "api", action: "encrypt_key", resourceId: apiId });
  }

  /** Makes a key's secret and record; shared by create and reroll. */
  async function mint(principal: Principal, template: Omit<KeyRecord, "id" | "hash" | "start" | "encrypted">, options: { prefix?: string; byteLength: number; recoverable: boolean }) {
    const secret = newSecret({ prefix: options.prefix, byteLength: options.byteLength, randomBytes: deps.randomBytes });
    const id = newId("key", template.createdAt, deps.randomBytes);
    const record: KeyRecord = { ...template, id, hash: secret.hash, start: secret.start };
    if (options.recoverable) record.encrypted = encryptKey(deps.encryptionKey as Buffer, secret.key, id);
    return { record, key: secret.key };
  }

  return {
    async createKey(request, { principal }) {
      authorize(principal, { resourceType: "api", action: "create_key", resourceId: request.apiId });
      const api = await documents.apis.get(principal.workspaceId, request.apiId);
      if (!api) throw notFound(`The api ${request.apiId} does not exist.`);
      if (request.recoverable) checkRecoverable(principal, api.id, api.storeEncryptedKeys);
      const now = clock.now();
      // Every input check comes before the first write: a refused request must not leave an identity behind.
      const checked = checkSettings(request, { now, randomBytes: deps.randomBytes });
      const links = await resolvedLinks(deps, principal, request);
      const { record, key } = await mint(principal, keyTemplate(checked, { api, now, ...links }), {
        // The api's keyspace defaults (updateApi) stand in for what the request leaves out.
        prefix: request.prefix ?? api.defaultPrefix,
        byteLength: request.byteLength ?? api.defaultBytes ?? DEFAULT_KEY_BYTES,
        recoverable: request.recoverable ?? false,
      });
      const credits = checked.credits;
      dropUndefined(record);
      if (credits.remaining !== undefined) {
        await withCounters(() => counters.setCredits(counterTag({ keyId: record.id, identityId: record.identityId }), record.id, credits.remaining as number, now));
      }
      await documents.keys.insert(record);
      cache.invalidate({ kind: "hash", hash: record.hash });
      return { keyId: record.id, key };
    },

    async getKey(request, { principal }) {
      const key = await loadKeyFor(deps, principal, request.keyId, "read_key");
      const decrypt = request.decrypt ?? false;
      if (decrypt) authorize(principal, { resourceType: "api", action: "decrypt_key", resourceId: key.apiId });
      return { key: await viewKey(deps, key, { decrypt }) };
    },

    async whoAmI(request, { principal }) {
      const found = await verifier.find(request.key);
      if (!found || found.key.workspaceId !== principal.workspaceId) throw notFound("The key does not exist.");
      authorize(principal, { resourceType: "api", action: "read_key", resourceId: found.key.apiId });
      return { key: await viewKey(deps, found.key, { decrypt: false }) };
    },

    updateKey: (request, { principal }) => updateKey(request, principal),

    async deleteKey(request, { principal }) {
      const key = await loadKeyFor(deps, principal, request.keyId, "delete_key");
      if (!(await deleteKeyRecord(deps, key, { permanent: request.permanent ?? false, now: clock.now() }))) {
        throw notFound(`The key ${key.id} does not exist.`);
      }
      return {};
    },

    async updateCredits(request, { principal }) {
      const key = await loadKeyFor(deps, principal, request.keyId, "update_key");
      const tag = counterTag({ keyId: key.id, identityId: key.identityId });
      const now = clock.now();
      if (request.operation === "set" && request.value === undefined) {
        // Unlimited: the balance and any refill rule go away.
        if (key.credits) {
          const update = await updateKeyWithRetry(deps, principal.workspaceId, key.id, (current) => current.credits ? { ...withoutCredits(current), updatedAt: now } : undefined, { read: key });
          if (!update) throw notFound(`The key ${key.id} does not exist.`);
          if (update.before.credits) {
            await withCounters(() => counters.deleteCredits(counterTag({ keyId: key.id, identityId: update.after.identityId }), key.id));
          }
        }
        return { credits: {} };
      }
      if (request.value === undefined) {
        throw invalid(`${request.operation} needs a value.`, [{ location: "value", message: "required for increment and decrement" }]);
      }
      const value = Number(request.value);
      let remaining: number;
      if (!key.credits) {
        if (request.operation !== "set") {
          // Unkey answers 400 (v2 InvalidInput, v1 BAD_REQUEST) here.
          throw invalid(`The key ${key.id} has unlimited credits; set a balance first.`, [{ location: "operation", message: "needs a credit balance" }]);
        }
        await withCounters(() => counters.setCredits(tag, key.id, value, now));
        // The balance went to `key`'s counter tag, once; a key that changed identity meanwhile would not find it.
        const update = await updateKeyWithRetry(deps, principal.workspaceId, key.id, (current) => {
          if (current.identityId !== key.identityId) throw new KeywardError("aborted", `The key ${key.id} changed its identity concurrently; retry the request.`);
          return current.credits ? undefined : { ...current, credits: { base: value, changedAt: now }, updatedAt: now };
        }, { read: key });
        if (!update) throw notFound(`The key ${key.id} does not exist.`);
        remaining = value;
      } else {
        remaining = await withCounters(() => counters.adjustCredits(tag, key.id, { operation: request.operation as "set", value, refill: refillAt(key, now), now }))
          .catch((error: unknown) => {
            // The stores refuse, unchanged, a balance REST could not send as a JSON number.
            if (error instanceof RangeError) throw invalid(`${request.operation} by ${value} would take the balance past 2^53 - 1.`, [{ location: "value", message: "the balance would exceed 2^53 - 1" }]);
            throw error;
          });
        // The record notes the update, so every instance's next read re-arms the credit events (usage-signals.ts).
        const noted = updateKeyWithRetry(deps, principal.workspaceId, key.id, (current) => current.credits && {
          ...current, credits: { ...current.credits, ...(request.operation === "set" && { base: value }), changedAt: now },
        }, { read: key });
        // A set may be answered "retry" (repeating it is harmless); an increment already applied must not be, and a
        // note that kept losing lost to writes that re-armed the events just the same.
        await (request.operation === "set" ? noted : noted.catch((error: unknown) => {
          if (!(error instanceof KeywardError && error.kind === "aborted")) throw error;
        }));
      }
      const refill = key.credits?.refill;
      return { credits: { remaining: BigInt(remaining), refill: refill && { interval: refill.interval, amount: BigInt(refill.amount), refillDay: refill.refillDay } } };
    },

    async rerollKey(request, { principal }) {
      const original = await loadKeyFor(deps, principal, request.keyId, "create_key");
      const api = await documents.apis.get(principal.workspaceId, original.apiId);
      if (!api) throw notFound(`The key ${original.id} does not exist.`);
      const recoverable = original.encrypted !== undefined;
      if (recoverable) checkRecoverable(principal, api.id, api.storeEncryptedKeys);
      const now = clock.now();
      const prefix = original.start.includes("_") ? original.start.slice(0, original.start.lastIndexOf("_")) : undefined;
      const { id: _id, hash: _hash, start: _start, encrypted: _encrypted, updatedAt: _updatedAt, ...settings } = original;
      const { record, key } = await mint(principal, { ...settings, createdAt: now }, { prefix, byteLength: api.defaultBytes ?? DEFAULT_KEY_BYTES, recoverable });
      if (original.credits) {
        const balance = await balanceOf(deps, original);
        await withCounters(() => counters.setCredits(counterTag({ keyId: record.id, identityId: record.identityId }), record.id, balance ?? 0, now));
      }
      await documents.keys.insert(record);
      const expiration = Number(request.expiration);
      if (expiration === 0) await documents.keys.markDeleted(principal.workspaceId, original.id, now);
      else {
        // The new key exists already; only the old one's expiry is retried, and a key deleted meanwhile stays deleted.
        await updateKeyWithRetry(deps, principal.workspaceId, original.id, (current) => ({ ...current, expires: Math.min(current.expires ?? Infinity, now + expiration), updatedAt: now }), { read: original });
      }
      cache.invalidate({ kind: "hash", hash: original.hash });
      cache.invalidate({ kind: "hash", hash: record.hash });
      return { keyId: record.id, key };
    },

    ...createKeyRbacHandlers(deps),
    ...createMigrationHandlers(deps),

    verifyKey: (request, context) => verifier.verifyV2(request, context),
    verifyKeyV1: (request, context) => verifier.verifyV1(request, context),
  };
}

function withoutCredits(key: KeyRecord): KeyRecord {
  const { credits: _credits, ...rest } = key;
  return rest;
}
