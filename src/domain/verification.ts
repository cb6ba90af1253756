import { inRanges, type AddressRange } from "./ip-allow-list.js";

/** The verification outcomes (spec: Verification codes). */
export type VerificationCode =
  | "VALID"
  | "NOT_FOUND"
  | "FORBIDDEN"
  | "USAGE_EXCEEDED"
  | "RATE_LIMITED"
  | "DISABLED"
  | "INSUFFICIENT_PERMISSIONS"
  | "EXPIRED";

/** What the checks before the counters need to know about a found key. */
export interface KeyFacts {
  enabled: boolean;
  apiId: string;
  expires?: number;
}

/**
 * The checks that need no counter, in DESIGN.md §3 order after NOT_FOUND: DISABLED → FORBIDDEN (v1 api id) →
 * EXPIRED → FORBIDDEN (ip whitelist) → INSUFFICIENT_PERMISSIONS. Returns the first failure, or undefined.
 * `ipAllowList` is the api's parsed allow-list (absent: any address); `clientIp` the client address the transport
 * established (client-address.ts), undefined when unknown, which no list allows.
 */
export function checkBeforeCounters(input: {
  key: KeyFacts;
  now: number;
  expectedApiId?: string;
  ipAllowList?: readonly AddressRange[];
  clientIp?: string;
  permissionsSatisfied: boolean;
}): VerificationCode | undefined {
  const { key } = input;
  if (!key.enabled) return "DISABLED";
  if (input.expectedApiId !== undefined && input.expectedApiId !== key.apiId) return "FORBIDDEN";
  if (key.expires !== undefined && key.expires <= input.now) return "EXPIRED";
  if (input.ipAllowList && !inRanges(input.ipAllowList, input.clientIp)) return "FORBIDDEN";
  if (!input.permissionsSatisfied) return "INSUFFICIENT_PERMISSIONS";
  return undefined;
}

export interface ConfiguredLimit {
  id: string;
  name: string;
  limit: number;
  duration: number;
  autoApply: boolean;
}

export interface RequestedLimit {
  name: string;
  cost?: number;
  limit?: number;
  duration?: number;
}

/** A limit this verification checks: where its counter lives and what it costs. */
export interface AppliedLimit extends ConfiguredLimit {
  cost: number;
  /** Identity-owned limits are shared by every key of the identity. */
  owner: "key" | "identity";
}

/**
 * Decides which limits run: every autoApply limit (cost 1 unless requested otherwise), every requested one by
 * name — a key's limit wins over its identity's of the same name — and ad-hoc ones given `limit` and `duration`.
 * A requested name that is neither configured nor ad-hoc is reported as `unknown`.
 */
export function resolveLimits(input: {
  keyLimits: readonly ConfiguredLimit[];
  identityLimits: readonly ConfiguredLimit[];
  requested: readonly RequestedLimit[];
}): { limits: AppliedLimit[] } | { unknown: string } {
  const { keyLimits, identityLimits, requested } = input;
  // Plain loops over the (few) limits, no Maps, spreads or closures: this runs on every verification.
  const applied: AppliedLimit[] = [];
  // Identity limits first, in their order, each replaced by the key's limit of the same name; then the key's own.
  for (const limit of identityLimits) {
    const effective = configured(limit.name, keyLimits, identityLimits)!;
    if (effective.autoApply) applied.push(effective);
  }
  for (const limit of keyLimits) {
    if (limit.autoApply && !identityLimits.some((other) => other.name === limit.name)) applied.push(asApplied(limit, "key"));
  }
  for (const request of requested) {
    const known = configured(request.name, keyLimits, identityLimits);
    let next: AppliedLimit;
    if (known) {
      next = known;
    } else if (request.limit !== undefined && request.duration !== undefined && request.duration > 0) {
      next = {
        id: `adhoc:${request.name}`, name: request.name, limit: request.limit, duration: request.duration,
        autoApply: false, cost: 1, owner: "key",
      };
    } else {
      return { unknown: request.name };
    }
    next.cost = request.cost ?? 1;
    const at = applied.findIndex((limit) => limit.name === request.name);
    if (at === -1) applied.push(next);
    else applied[at] = next;
  }
  return { limits: applied };
}

/** The limit of that name, the key's winning over its identity's. */
function configured(name: string, keyLimits: readonly ConfiguredLimit[], identityLimits: readonly ConfiguredLimit[]): AppliedLimit | undefined {
  for (const limit of keyLimits) if (limit.name === name) return asApplied(limit, "key");
  for (const limit of identityLimits) if (limit.name === name) return asApplied(limit, "identity");
  return undefined;
}

function asApplied(limit: ConfiguredLimit, owner: AppliedLimit["owner"]): AppliedLimit {
  return { id: limit.id, name: limit.name, limit: limit.limit, duration: limit.duration, autoApply: limit.autoApply, cost: 1, owner };
}

/** The counter bucket of a limit: identity-owned ones are shared across the identity's keys. */
export function bucketOf(limit: AppliedLimit, ids: { keyId: string; identityId?: string }): string {
  return limit.owner === "identity" && ids.identityId
    ? `identity:${ids.identityId}:${limit.name}`
    : `key:${ids.keyId}:${limit.name}`;
}

/** All counters of one verification share this hash tag (DESIGN.md §3 Scale). */
export function counterTag(ids: { keyId: string; identityId?: string }): string {
  return ids.identityId ?? ids.keyId;
}
