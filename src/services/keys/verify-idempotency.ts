import { idempotencyKeyOf, requestFingerprint } from "../../domain/idempotency.js";
import { hashKey } from "../../domain/key-material.js";
import type { RequestOrigin } from "../context.js";

/** A verification's idempotency key and the fingerprint of the request it stands for. */
export interface VerifyIdempotency {
  key: string;
  fingerprint: string;
}

/**
 * The call's idempotency key (request field, else the `Idempotency-Key` header every transport hands over in its
 * origin; gRPC metadata are those headers) with its request fingerprint; undefined without a key, so calls without
 * one pay for nothing but a header lookup. `request` is everything else that decides the answer, in a fixed shape;
 * the plaintext key enters only hashed.
 */
export function verifyIdempotencyOf(input: {
  field: string | undefined;
  origin: RequestOrigin | undefined;
  dialect: "v1" | "v2";
  plaintext: string;
  request: unknown;
}): VerifyIdempotency | undefined {
  const key = idempotencyKeyOf(input.field, input.origin?.headers["idempotency-key"]);
  if (key === undefined) return undefined;
  return { key, fingerprint: requestFingerprint([input.dialect, hashKey(input.plaintext), input.request]) };
}
