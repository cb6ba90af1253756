import type { MessageInitShape } from "@bufbuild/protobuf";
import type { IdentitySchema, KeySchema } from "../../../gen/keyward/v1/keys_pb.js";
import type { IdentityRecord, KeyRecord, RatelimitRecord } from "../../store/ports/key-records.js";

type KeyInit = MessageInitShape<typeof KeySchema>;

const big = (n: number | undefined) => (n === undefined ? undefined : BigInt(n));

export function ratelimitView(limit: RatelimitRecord) {
  return { id: limit.id, name: limit.name, limit: BigInt(limit.limit), duration: BigInt(limit.duration), autoApply: limit.autoApply };
}

/**
 * An identity as calls return it; `remaining` is its shared balance (read by the caller, or what a verification left),
 * shown with the refill rule when the identity has credits.
 */
export function identityView(identity: IdentityRecord, remaining?: number): MessageInitShape<typeof IdentitySchema> {
  return {
    id: identity.id,
    externalId: identity.externalId,
    meta: (identity.meta ?? {}) as never,
    ratelimits: identity.ratelimits.map(ratelimitView),
    credits: identity.credits && creditsView(identity.credits, remaining),
  };
}

function creditsView(credits: NonNullable<KeyRecord["credits"]>, remaining: number | undefined) {
  const refill = credits.refill;
  return {
    remaining: big(remaining),
    refill: refill && { interval: refill.interval, amount: BigInt(refill.amount), refillDay: refill.refillDay },
  };
}

/** A key record as management calls return it; the secret appears only as `plaintext` when decrypted. */
export function keyView(
  key: KeyRecord,
  extra: { identity?: IdentityRecord; identityRemaining?: number; remaining?: number; plaintext?: string; lastRefillAt?: number; permissions?: string[]; lastUsedAt?: number },
): KeyInit {
  return {
    keyId: key.id,
    start: key.start,
    apiId: key.apiId,
    workspaceId: key.workspaceId,
    name: key.name,
    meta: key.meta as never,
    createdAt: BigInt(key.createdAt),
    updatedAt: big(key.updatedAt),
    expires: big(key.expires),
    enabled: key.enabled,
    plaintext: extra.plaintext,
    credits: key.credits && creditsView(key.credits, extra.remaining),
    ratelimits: key.ratelimits.map(ratelimitView),
    identity: extra.identity && identityView(extra.identity, extra.identityRemaining),
    permissions: extra.permissions ?? key.permissions,
    roles: key.roles,
    environment: key.environment,
    lastUsedAt: big(extra.lastUsedAt),
  };
}
