import { beforeAll, expect } from "vitest";
import type { RestResponse } from "./rest.js";
import { restClient } from "./rest.js";
import { useKeyward, type Harness } from "./use-keyward.js";

/** The three REST doors to verification: v2 (root key), v1 `keys.verifyKey` and legacy `/v1/keys/verify` (public). */
export type VerifyVia = "v1" | "v2" | "legacy";
export const VERIFY_VIAS: VerifyVia[] = ["v1", "v2", "legacy"];

/** A verification by intent; each dialect gets it in its own field names. */
export interface VerifyIntent {
  key: string;
  /** v1 and legacy only: the api the key must belong to. */
  apiId?: string;
  /** Credits to deduct: v2 `credits.cost`, v1 `remaining.cost`. */
  cost?: number;
  tags?: string[];
  ratelimits?: { name: string; cost?: number; limit?: number; duration?: number }[];
  /** The permission query in both forms: v1 object (`authorization.permissions`), v2 string (`permissions`). */
  permissions?: { v1: unknown; v2: string };
  /** Fields sent as they are, e.g. the deprecated v1 `ratelimit: { cost }`. */
  extra?: Record<string, unknown>;
}

/** One verification as a test looks at it, whatever the dialect. */
export interface Verification {
  via: VerifyVia;
  status: number;
  code: string;
  valid: boolean;
  /** v2 `data`, v1 and legacy the bare body. */
  payload: Record<string, any>;
  /** Credits left as reported: v2 `credits`, v1/legacy `remaining`; undefined when absent (unlimited). */
  credits: number | undefined;
  response: RestResponse;
}

/** The request body `intent` becomes in `via`'s dialect. */
export function verifyBody(via: VerifyVia, intent: VerifyIntent): Record<string, unknown> {
  const body: Record<string, unknown> = { key: intent.key };
  if (intent.tags) body.tags = intent.tags;
  if (intent.ratelimits) body.ratelimits = intent.ratelimits;
  if (via === "v2") {
    if (intent.cost !== undefined) body.credits = { cost: intent.cost };
    if (intent.permissions) body.permissions = intent.permissions.v2;
  } else {
    if (intent.apiId !== undefined) body.apiId = intent.apiId;
    if (intent.cost !== undefined) body.remaining = { cost: intent.cost };
    if (intent.permissions) body.authorization = { permissions: intent.permissions.v1 };
  }
  return { ...body, ...intent.extra };
}

const PATHS: Record<VerifyVia, string> = { v2: "/v2/keys.verifyKey", v1: "/v1/keys.verifyKey", legacy: "/v1/keys/verify" };

/**
 * A verification client for one server. `verify` sends the intent and asserts the 200 every verification answers
 * (with the request id in the body equal to the header); `send` sends a raw body and returns the response as is.
 */
export function verifyClient(baseUrl: string, rootKey: string) {
  async function send(via: VerifyVia, body: unknown, options: { rootKey?: string | null } = {}): Promise<RestResponse> {
    const key = options.rootKey === undefined ? rootKey : options.rootKey;
    const headers: Record<string, string> = { "content-type": "application/json" };
    // v1 and legacy are public: they get no Authorization header unless a test asks for one.
    if (key !== null && (via === "v2" || options.rootKey !== undefined)) headers.authorization = `Bearer ${key}`;
    const response = await fetch(`${baseUrl}${PATHS[via]}`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep text so the assertion shows it
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }

  async function verify(via: VerifyVia, intent: VerifyIntent, options: { rootKey?: string } = {}): Promise<Verification> {
    const response = await send(via, verifyBody(via, intent), options);
    expect({ via, status: response.status, error: response.body?.error }).toEqual({ via, status: 200, error: undefined });
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^req_/);
    let payload: Record<string, any>;
    if (via === "v2") {
      expect(response.body.meta).toEqual({ requestId });
      payload = response.body.data;
    } else {
      payload = response.body;
      // The legacy answer of a found key has no requestId (spec: its field list); everything else carries one.
      if (via === "v1" || payload.code === "NOT_FOUND") expect(payload.requestId).toBe(requestId);
    }
    return {
      via,
      status: response.status,
      code: payload.code,
      valid: payload.valid,
      payload,
      credits: via === "v2" ? payload.credits : payload.remaining,
      response,
    };
  }

  return { verify, send };
}

export type VerifyClient = ReturnType<typeof verifyClient>;

/** Key management over REST v2 with a root key: the calls verification tests seed and inspect with. */
export function keyAdmin(baseUrl: string, rootKey: string) {
  const rest = restClient(baseUrl);
  async function ok(op: string, body: unknown, by = rootKey) {
    const response = await rest.v2(op, body, by);
    expect({ op, status: response.status, error: response.body?.error }).toEqual({ op, status: 200, error: undefined });
    return response.body.data;
  }
  return {
    ok,
    /** An api of the root key's workspace. */
    api: async (name = "verify-api", by = rootKey): Promise<string> => (await ok("apis.createApi", { name }, by)).apiId,
    /** A key created by `keys.createKey` (v2 fields): `{ keyId, key }`. */
    key: (apiId: string, fields: Record<string, unknown> = {}, by = rootKey): Promise<{ keyId: string; key: string }> =>
      ok("keys.createKey", { apiId, ...fields }, by),
    /** The key as `keys.getKey` shows it (v2 data). */
    get: (keyId: string): Promise<Record<string, any>> => ok("keys.getKey", { keyId }),
    /** The key's stored balance: a number, or null when unlimited. */
    async balance(keyId: string): Promise<number | null> {
      const data = await ok("keys.getKey", { keyId });
      return data.credits ? data.credits.remaining ?? null : null;
    },
    update: (fields: Record<string, unknown>) => ok("keys.updateKey", fields),
  };
}

export type KeyAdmin = ReturnType<typeof keyAdmin>;

/** Moves a manual clock to the start of the next epoch-aligned window of `duration` ms (rate-limit windows). */
export function toNextWindow(clock: { now(): number; set(ms: number): void }, duration: number): number {
  const start = (Math.floor(clock.now() / duration) + 1) * duration;
  clock.set(start);
  return start;
}

/** Counts the codes of a batch of verifications: `{ VALID: 100, USAGE_EXCEEDED: 400 }`. */
export function countCodes(codes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}

/** A test file's server (manual clock, embedded store) with a verification client and key admin on it. */
export interface VerifyKit {
  harness: Harness;
  verifier: VerifyClient;
  admin: KeyAdmin;
  /** Verifies through `via` and returns the outcome (asserting the 200 and request id). */
  verify(via: VerifyVia, intent: VerifyIntent, options?: { rootKey?: string }): Promise<Verification>;
}

/** Starts one Keyward for the calling test file (see `useKeyward`); the kit is filled in before the first test. */
export function useVerifyKit(): VerifyKit {
  const harness = useKeyward();
  const kit = { harness } as VerifyKit;
  beforeAll(() => {
    const { baseUrl, rootKey } = harness.keyward;
    kit.verifier = verifyClient(baseUrl, rootKey);
    kit.admin = keyAdmin(baseUrl, rootKey);
    kit.verify = (via, intent, options) => kit.verifier.verify(via, intent, options);
  });
  return kit;
}
