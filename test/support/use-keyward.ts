import { afterAll, beforeAll, expect } from "vitest";
import type { WebhookSettings } from "../../src/config.js";
import { allPermissions } from "../../src/domain/permissions.js";
import { manualClock, startKeyward, type RunningKeyward } from "./keyward.js";
import { restClient } from "./rest.js";
import { snapshotStore, watchWrites, type StoreSnapshot } from "./store-watch.js";

/** A server for one test file plus intent-named seeding over its REST API. */
export interface Harness {
  keyward: RunningKeyward;
  clock: ReturnType<typeof manualClock>;
  rest: ReturnType<typeof restClient>;
  /** Writes recorded since the last `writes.clear()`. */
  writes: ReturnType<typeof watchWrites>;
  seed: Seed;
  snapshot(): Promise<StoreSnapshot>;
}

export interface Seed {
  /** A root key of the default workspace holding exactly `permissions`. */
  rootKey(permissions: string[], options?: { expires?: number; name?: string; by?: string }): Promise<{ keyId: string; key: string }>;
  /** A root key holding every catalogue permission except `permission`. */
  rootKeyWithout(permission: string): Promise<{ keyId: string; key: string }>;
  /** A root key that existed and was deleted. */
  deletedRootKey(): Promise<string>;
  /** A root key whose `expires` is already in the past. */
  expiredRootKey(): Promise<string>;
  /** A live api of the default workspace (or of the workspace `by` belongs to). */
  api(options?: { name?: string; deleteProtection?: boolean; by?: string }): Promise<string>;
  /** A second workspace and its all-permission root key. */
  workspace(name?: string): Promise<{ workspaceId: string; rootKey: { keyId: string; key: string } }>;
  /** A key of `apiId` created over v2 keys.createKey with `fields` (v2 JSON); `by` defaults to the bootstrap key. */
  key(apiId: string, fields?: Record<string, unknown>, options?: { by?: string }): Promise<{ keyId: string; key: string }>;
}

/**
 * Starts one Keyward for the calling test file (beforeAll/afterAll) on a manual clock, watching store writes
 * (with KEYWARD_ENCRYPTION_KEY when `encryptionKey` is given; on `host` with KEYWARD_TRUSTED_PROXIES `trustedProxies`
 * when given). The returned object is filled in before the first test runs.
 */
export function useKeyward(
  options: { encryptionKey?: Buffer; host?: string; trustedProxies?: string; webhooks?: Partial<WebhookSettings> } = {},
): Harness {
  const harness = {} as Harness;
  beforeAll(async () => {
    const clock = manualClock(Date.UTC(2030, 0, 1));
    const keyward = await startKeyward({
      clock, encryptionKey: options.encryptionKey, host: options.host, trustedProxies: options.trustedProxies, webhooks: options.webhooks,
    });
    const rest = restClient(keyward.baseUrl);
    Object.assign(harness, {
      keyward,
      clock,
      rest,
      writes: watchWrites(keyward.documents),
      seed: createSeed(keyward, rest, clock),
      snapshot: () => snapshotStore(keyward.documents),
    });
  });
  afterAll(async () => {
    await harness.keyward?.stop();
  });
  return harness;
}

function createSeed(keyward: RunningKeyward, rest: ReturnType<typeof restClient>, clock: { now(): number }): Seed {
  async function ok(op: string, body: unknown, by = keyward.rootKey) {
    const response = await rest.v2(op, body, by);
    expect({ op, status: response.status, error: response.body?.error }).toEqual({ op, status: 200, error: undefined });
    return response.body.data;
  }
  const seed: Seed = {
    rootKey: (permissions, options = {}) =>
      ok("rootKeys.createRootKey", { permissions, name: options.name, expires: options.expires }, options.by),
    rootKeyWithout: (permission) => seed.rootKey(allPermissions().filter((p) => p !== permission)),
    async deletedRootKey() {
      const { keyId, key } = await seed.rootKey(allPermissions());
      await ok("rootKeys.deleteRootKey", { keyId });
      return key;
    },
    async expiredRootKey() {
      return (await seed.rootKey(allPermissions(), { expires: clock.now() - 1 })).key;
    },
    async api(options = {}) {
      const data = await ok(
        "apis.createApi",
        { name: options.name ?? "seeded-api", deleteProtection: options.deleteProtection },
        options.by,
      );
      return data.apiId;
    },
    workspace: (name = "other-workspace") => ok("workspaces.createWorkspace", { name }),
    key: (apiId, fields = {}, options = {}) => ok("keys.createKey", { apiId, ...fields }, options.by),
  };
  return seed;
}
