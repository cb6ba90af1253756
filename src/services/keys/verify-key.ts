import { toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type {
  VerifyKeyRequest, VerifyKeyResponseSchema, VerifyKeyV1Request, VerifyKeyV1ResponseSchema,
} from "../../../gen/keyward/v1/keys_pb.js";
import { invalid, KeywardError } from "../../domain/errors.js";
import { hashKey } from "../../domain/key-material.js";
import {
  evaluatePermissionQuery, parsePermissionQuery, permissionQueryFromV1, type PermissionQuery,
} from "../../domain/permission-query.js";
import { satisfies } from "../../domain/permissions.js";
import {
  bucketOf, checkBeforeCounters, counterTag, resolveLimits, type AppliedLimit, type RequestedLimit, type VerificationCode,
} from "../../domain/verification.js";
import type { ConsumePlan, ConsumeResult, LimitCheck, LimitResult } from "../../store/ports/counters.js";
import { allowListOf } from "../../domain/ip-allow-list.js";
import { clientAddressOf, type CallContext, type CommitGate, type Principal, type RequestOrigin } from "../context.js";
import type { VerifiableKey } from "../key-cache.js";
import {
  balanceOf, counterFailure, effectivePermissionsOf, identityBalanceOf, refillAt, withCounters, type KeysDeps,
} from "./key-context.js";
import { identityView } from "./key-view.js";
import { verifyIdempotency, verifyIdempotencyKeyOf, type VerifyIdempotency } from "./verify-idempotency.js";
import { DEFAULT_IDEMPOTENCY_WINDOW_MS, idempotencyConflict } from "../../domain/idempotency.js";

interface VerifyInput {
  plaintext: string;
  /** The key already looked up for this plaintext (v1 needs it before verifying); else `verify` looks it up. */
  found?: VerifiableKey;
  requestId: string;
  /** v2: keys the caller's root key may not verify answer NOT_FOUND. */
  visibleTo?: Principal;
  /** v1: the key must belong to this api (else FORBIDDEN). */
  expectedApiId?: string;
  query?: PermissionQuery;
  requested: readonly RequestedLimit[];
  cost: number;
  tags: string[];
  /** How an unknown requested rate-limit name is refused: v1 400, v2 412. */
  unknownLimit: "invalid" | "precondition";
  /** The call's deadline, passed before the outcome is decided (and counters consumed, the event recorded). */
  commit: CommitGate | undefined;
  /** Where the call came from: read only when the key's api has an IP allow-list. */
  origin: RequestOrigin | undefined;
  /** With a key, the counter step answers a retry with the first result (store/ports.ts IdempotencyCheck). */
  idempotency?: VerifyIdempotency;
}

interface Outcome {
  code: VerificationCode;
  found?: VerifiableKey;
  limits: { applied: AppliedLimit; result: LimitResult }[];
  remaining?: number;
  /** The identity's shared balance after this verification, when it has credits. */
  identityRemaining?: number;
  /** The counter step answered an earlier call's result under the same idempotency key and spent nothing. */
  replayed?: true;
}

/** The limits of one verification and their counter buckets, index by index. */
interface ResolvedLimits {
  applied: AppliedLimit[];
  buckets: string[];
}

/** The verification engine behind v1 and v2: one pipeline, two response shapes. */
export function createVerifier(deps: KeysDeps) {
  const { documents, cache, clock } = deps;
  // limitsOf's memo, by cached key.
  const autoLimits = new WeakMap<VerifiableKey, ResolvedLimits>();

  async function read(hash: string): Promise<VerifiableKey | undefined> {
    const key = await documents.keys.findByHash(hash);
    const api = key && (await documents.apis.get(key.workspaceId, key.apiId));
    if (!key || !api) return undefined;
    const identity = key.identityId ? await documents.identities.get(key.workspaceId, key.identityId) : undefined;
    return { key, api, identity, permissions: await effectivePermissionsOf(deps, key) };
  }

  /** The key of this plaintext; at once (no promise) when cached, as a hot key is. */
  function find(plaintext: string): VerifiableKey | undefined | Promise<VerifiableKey | undefined> {
    return cache.lookup(hashKey(plaintext), read, CACHE_MISSING);
  }

  // The async frame holds only what crosses an await; the steps between are plain functions below. The outcome is
  // handed back through `answer` (the dialect's shape), so the caller needs no promise of its own to make it.
  async function verify<T>(input: VerifyInput, answer: (outcome: Outcome) => T): Promise<T> {
    const started = performance.now();
    const now = clock.now();
    let found = input.found ?? find(input.plaintext);
    if (found instanceof Promise) found = await found;
    if (!found || !visibleTo(found, input.visibleTo)) {
      deps.onVerified?.("NOT_FOUND");
      return answer({ code: "NOT_FOUND", limits: [] });
    }

    // From here on the verification writes (counters, a refill, its event): past the deadline it writes nothing, and
    // once begun it is answered with its outcome. A NOT_FOUND writes nothing and needs no gate.
    input.commit?.beginCommit();
    const failed = refusalOf(found, input, now);
    let outcome: Outcome;
    if (failed) {
      outcome = await refused(found, input, now, failed);
    } else {
      const limits = limitsOf(found, input.requested);
      if ("unknown" in limits) {
        const detail = `The key has no rate limit named "${limits.unknown}"; configure it or pass limit and duration.`;
        throw input.unknownLimit === "invalid" ? invalid(detail, [{ location: "ratelimits", message: detail }]) : new KeywardError("precondition", detail);
      }
      const plan = planOf(found, limits, input.cost, now, input.idempotency);
      if (!plan) outcome = { code: "VALID", found, limits: [] };
      else {
        // The store is awaited here, in this frame (withCounters' rule, without its closure and frames).
        let result: ConsumeResult;
        try {
          result = await deps.counters.consume(plan);
        } catch (error) {
          throw counterFailure(error);
        }
        outcome = outcomeOf(found, limits.applied, result);
      }
    }
    // A replay spent nothing, and the first call's event and usage signals already count it.
    if (!outcome.replayed) recordVerification(found, input, outcome, now, started);
    deps.onVerified?.(outcome.code);
    return answer(outcome);
  }

  /** The first refusal before the counters (DISABLED ... INSUFFICIENT_PERMISSIONS), if any. */
  function refusalOf(found: VerifiableKey, input: VerifyInput, now: number): VerificationCode | undefined {
    // The client address is worked out only for apis with an allow-list: the others never pay for it.
    const ipAllowList = allowListOf(found.api.ipWhitelist);
    const clientIp = ipAllowList && clientAddressOf(input.origin, deps.trustedProxies ?? []);
    return checkBeforeCounters({
      key: found.key, now, expectedApiId: input.expectedApiId, ipAllowList, clientIp,
      permissionsSatisfied: input.query ? evaluatePermissionQuery(input.query, new Set(found.permissions)) : true,
    });
  }

  /** A key refused before the counters, with its balances; a retry whose first call reached the counter step answers that step again. */
  async function refused(found: VerifiableKey, input: VerifyInput, now: number, code: VerificationCode): Promise<Outcome> {
    const recalled = input.idempotency && (await recall(found, input, now, input.idempotency));
    if (recalled) return recalled;
    const { key, identity } = found;
    return {
      code, found, limits: [], remaining: await balanceOf(deps, key),
      identityRemaining: identity && (await identityBalanceOf(deps, identity)),
    };
  }

  /** The verification's event and usage signals (webhooks). */
  function recordVerification(found: VerifiableKey, input: VerifyInput, outcome: Outcome, now: number, started: number): void {
    const { key, identity } = found;
    deps.events.record({
      time: now, workspaceId: key.workspaceId, apiId: key.apiId, keyId: key.id, identityId: key.identityId,
      outcome: outcome.code, tags: input.tags, creditsSpent: outcome.code === "VALID" && (key.credits || identity?.credits) ? input.cost : 0,
      // To the microsecond: finer digits mean nothing here, and a short decimal is cheap to write (event-segments.ts).
      latencyMs: Math.round((performance.now() - started) * 1000) / 1000, requestId: input.requestId,
    });
    deps.usageSignals?.verified({ key, identity, now, cost: input.cost, code: outcome.code, remaining: outcome.remaining, limits: outcome.limits });
  }

  /**
   * The limits a verification applies, with their counter buckets. A request naming none (most) resolves the same
   * way for as long as its key stays cached: that is resolved once per cached key (a changed key or identity is a new
   * cache entry, so a new resolution). The memo's lists are never written to.
   */
  function limitsOf(found: VerifiableKey, requested: readonly RequestedLimit[]): ResolvedLimits | { unknown: string } {
    const automatic = requested.length === 0;
    if (automatic) {
      const known = autoLimits.get(found);
      if (known) return known;
    }
    const resolved = resolveLimits({ keyLimits: found.key.ratelimits, identityLimits: found.identity?.ratelimits ?? [], requested });
    if ("unknown" in resolved) return resolved;
    const ids = { keyId: found.key.id, identityId: found.key.identityId };
    const limits: ResolvedLimits = { applied: resolved.limits, buckets: resolved.limits.map((limit) => bucketOf(limit, ids)) };
    if (automatic) autoLimits.set(found, limits);
    return limits;
  }

  /** The counter step of a verification; none when there is nothing to count and no idempotency record to keep. */
  function planOf(
    found: VerifiableKey, limits: ResolvedLimits, cost: number, now: number, idempotency: VerifyIdempotency | undefined,
  ): ConsumePlan | undefined {
    const { key, identity } = found;
    const { applied, buckets } = limits;
    // An identity's shared credits join the same step (its id is the step's tag); without them nothing is added.
    const shared = identity?.credits;
    if (applied.length === 0 && !key.credits && !shared && !idempotency) return undefined;
    // Fresh checks every time: the plan is the store's to use as it likes.
    const checks = new Array<LimitCheck>(applied.length);
    for (let i = 0; i < applied.length; i++) {
      checks[i] = { bucket: buckets[i], limit: applied[i].limit, duration: applied[i].duration, cost: applied[i].cost };
    }
    return {
      tag: counterTag({ keyId: key.id, identityId: key.identityId }),
      now,
      limits: checks,
      credits: key.credits && { keyId: key.id, cost, refill: refillAt(key, now) },
      identityCredits: shared && { keyId: identity.id, cost, refill: refillAt(identity, now) },
      idempotency: idempotency && {
        scope: key.workspaceId, key: idempotency.key, fingerprint: idempotency.fingerprint,
        expiresAt: now + (deps.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS),
      },
    };
  }

  function outcomeOf(found: VerifiableKey, limits: AppliedLimit[], result: ConsumeResult): Outcome {
    // A replay whose limits no longer line up (the key's limits changed since) cannot repeat the first answer.
    if (result.replayed && result.limits.length !== limits.length) throw idempotencyConflict();
    return {
      code: result.outcome,
      found,
      limits: limits.map((applied, i) => ({ applied, result: result.limits[i] })),
      remaining: result.credits?.remaining,
      identityRemaining: result.identityCredits?.remaining,
      replayed: result.replayed,
    };
  }

  /** The earlier step a refused retry repeats, if its key recorded one (limits resolved as that step resolved them). */
  async function recall(found: VerifiableKey, input: VerifyInput, now: number, idempotency: VerifyIdempotency): Promise<Outcome | undefined> {
    const limits = limitsOf(found, input.requested);
    if ("unknown" in limits) return undefined;
    const plan = planOf(found, limits, input.cost, now, idempotency)!;
    const result = await withCounters(() => deps.counters.recall(plan));
    return result && outcomeOf(found, limits.applied, result);
  }

  return {
    find,

    /** Not async itself: `verify` makes the answer from the outcome with `v2Answer`. */
    verifyV2(request: VerifyKeyRequest, context: CallContext): Promise<MessageInitShape<typeof VerifyKeyResponseSchema>> {
      let query: PermissionQuery | undefined;
      if (request.permissions !== undefined) {
        const parsed = parsePermissionQuery(request.permissions);
        if ("error" in parsed) {
          const { message } = parsed.error; // it names the position already
          throw invalid(`The permission query is invalid: ${message}`, [{ location: "permissions", message }]);
        }
        query = parsed.query;
      }
      const requested = request.ratelimits.length === 0 ? NONE_REQUESTED : request.ratelimits.map(requestedLimit);
      const cost = request.credits?.cost === undefined ? 1 : Number(request.credits.cost);
      const idempotencyKey = verifyIdempotencyKeyOf(request.idempotencyKey, context.origin);
      const idempotency = idempotencyKey === undefined ? undefined : verifyIdempotency(idempotencyKey, {
        dialect: "v2", plaintext: request.key, request: [cost, requested, request.permissions ?? null, request.tags],
      });
      return verify({
        plaintext: request.key, requestId: context.requestId, visibleTo: context.principal, query, requested, cost,
        tags: request.tags, unknownLimit: "precondition", commit: context.commit, origin: context.origin, idempotency,
      }, v2Answer);
    },

    async verifyV1(request: VerifyKeyV1Request, context: CallContext): Promise<MessageInitShape<typeof VerifyKeyV1ResponseSchema>> {
      let query: PermissionQuery | undefined;
      // The query arrives as a google.protobuf.Value message; the v1 parser reads its JSON.
      const value = request.authorization?.permissions;
      const rawQuery = value && value.kind.case !== undefined ? toJson(ValueSchema, value) : null;
      if (rawQuery !== null) {
        const parsed = permissionQueryFromV1(rawQuery);
        if ("error" in parsed) {
          const location = `authorization.permissions${parsed.error.path}`;
          throw invalid(`The permission query is invalid: ${parsed.error.message}`, [{ location, message: parsed.error.message }]);
        }
        query = parsed.query;
      }
      const requested = request.ratelimits.map(requestedLimit);
      const found = await find(request.key);
      // The deprecated `ratelimit:{cost}` is the `default` limit with that cost, when the key has one.
      if (request.ratelimit && found?.key.ratelimits.some((l) => l.name === "default")) {
        requested.push({ name: "default", cost: request.ratelimit.cost === undefined ? 1 : Number(request.ratelimit.cost) });
      }
      const cost = request.remaining?.cost === undefined ? 1 : Number(request.remaining.cost);
      const idempotencyKey = verifyIdempotencyKeyOf(undefined, context.origin);
      const idempotency = idempotencyKey === undefined ? undefined : verifyIdempotency(idempotencyKey, {
        dialect: "v1", plaintext: request.key, request: [request.apiId ?? null, rawQuery, requested, cost, request.tags],
      });
      const outcome = await verify({
        plaintext: request.key, found, requestId: context.requestId, expectedApiId: request.apiId, query, requested,
        cost, tags: request.tags, unknownLimit: "invalid", commit: context.commit, origin: context.origin, idempotency,
      }, asIs);
      if (!outcome.found) return { valid: false, code: outcome.code, requestId: context.requestId };
      const { key, identity } = outcome.found;
      const shown = outcome.limits.find((l) => l.applied.name === "default") ?? outcome.limits[0];
      return {
        keyId: key.id,
        valid: outcome.code === "VALID",
        name: key.name,
        ownerId: identity?.externalId,
        meta: key.meta as never,
        expires: key.expires === undefined ? undefined : BigInt(key.expires),
        ratelimit: shown && { limit: BigInt(shown.applied.limit), remaining: BigInt(shown.result.remaining), reset: BigInt(shown.result.reset) },
        remaining: outcome.remaining === undefined ? undefined : BigInt(outcome.remaining),
        code: outcome.code,
        enabled: key.enabled,
        permissions: outcome.found.permissions,
        roles: key.roles,
        environment: key.environment,
        identity: identity && {
          id: identity.id, externalId: identity.externalId, meta: (identity.meta ?? {}) as never,
          credits: identityView(identity, outcome.identityRemaining).credits,
        },
        requestId: context.requestId,
        createdAt: BigInt(key.createdAt),
      };
    },
  };
}

const CACHE_MISSING = { cacheMissing: true };

/** v2 hides keys: one of another workspace, or of an api the root key may not verify, is NOT_FOUND. */
function visibleTo(found: VerifiableKey, principal: Principal | undefined): boolean {
  return !principal || (found.key.workspaceId === principal.workspaceId
    && satisfies(principal.permissions, { resourceType: "api", action: "verify_key", resourceId: found.key.apiId }));
}

/** The outcome itself, for a caller that shapes it after more awaits of its own (v1). */
const asIs = (outcome: Outcome): Outcome => outcome;

/** A request that names no rate limit (most do not): one shared empty list, never written to. */
const NONE_REQUESTED: readonly RequestedLimit[] = [];

/** The v2 answer of an outcome: NOT_FOUND carries no key data, every other outcome all of it. */
function v2Answer(outcome: Outcome): MessageInitShape<typeof VerifyKeyResponseSchema> {
  const { found } = outcome;
  if (!found) return { valid: false, code: outcome.code };
  const { key, identity } = found;
  return {
    valid: outcome.code === "VALID",
    code: outcome.code,
    keyId: key.id,
    name: key.name,
    meta: key.meta as never,
    expires: key.expires === undefined ? undefined : BigInt(key.expires),
    credits: outcome.remaining === undefined ? undefined : BigInt(outcome.remaining),
    enabled: key.enabled,
    permissions: found.permissions,
    roles: key.roles,
    identity: identity && identityView(identity, outcome.identityRemaining),
    ratelimits: outcome.limits.map(({ applied, result }) => ({
      exceeded: result.exceeded, id: applied.id, name: applied.name, limit: BigInt(applied.limit),
      duration: BigInt(applied.duration), reset: BigInt(result.reset), remaining: BigInt(result.remaining),
      autoApply: applied.autoApply,
    })),
  };
}

function requestedLimit(request: { name: string; cost?: bigint; limit?: bigint; duration?: bigint }): RequestedLimit {
  return { name: request.name, cost: optionalNumber(request.cost), limit: optionalNumber(request.limit), duration: optionalNumber(request.duration) };
}

function optionalNumber(value: bigint | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}
