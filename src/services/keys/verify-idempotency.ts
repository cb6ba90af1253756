import { idempotencyKeyOf, requestFingerprint } from "../../domain/idempotency.js";
import { hashKey } from "../../domain/key-material.js";
import type { RequestOrigin } from "../context.js";

/** A verification's idempotency key and the fingerprint of the request it stands for. */
export interface VerifyIdempotency {
  key: string;
  fingerprint: string;
}

/**
 * The call's idempotency key: the request field, else the `Idempotency-Key` header every transport hands over in its
 * origin (gRPC metadata are those headers); undefined without one. Asked first, so that calls without a key pay for
 * nothing but a header lookup (`verifyIdempotency` builds the rest only for a key).
 */
export function verifyIdempotencyKeyOf(field: string | undefined, origin: RequestOrigin | undefined): string | undefined {
  return idempotencyKeyOf(field, origin?.headers["idempotency-key"]);
}

/**
 * The key with its request fingerprint. `request` is everything else that decides the answer, in a fixed shape; the
 * plaintext key enters only hashed.
 */
export function verifyIdempotency(key: string, input: { dialect: "v1" | "v2"; plaintext: string; request: unknown }): VerifyIdempotency {
  return { key, fingerprint: requestFingerprint([input.dialect, hashKey(input.plaintext), input.request]) };
}
