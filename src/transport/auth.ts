import type { Clock } from "../domain/clock.js";
import { unauthenticated } from "../domain/errors.js";
import { hashKey } from "../domain/key-material.js";
import type { Principal } from "../services/context.js";
import type { RootKeyStore } from "../store/ports.js";

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

/**
 * Resolves an `Authorization` header to a principal, or throws 401 for a missing or malformed header and for
 * an unknown, deleted or expired root key. The lookup goes by hash, so the secret is never compared as text.
 */
export async function authenticate(
  header: string | null | undefined,
  deps: { rootKeys: RootKeyStore; clock: Clock },
): Promise<Principal> {
  if (!header) throw unauthenticated("The Authorization header is missing; send `Authorization: Bearer <root key>`.");
  const match = BEARER.exec(header.trim());
  if (!match) throw unauthenticated("The Authorization header is malformed; expected `Bearer <root key>`.");
  const record = await deps.rootKeys.findByHash(hashKey(match[1]));
  if (!record || record.deletedAt !== undefined) throw unauthenticated("The root key is unknown or revoked.");
  if (record.expiresAt !== undefined && record.expiresAt <= deps.clock.now()) {
    throw unauthenticated("The root key has expired.");
  }
  return { workspaceId: record.workspaceId, rootKeyId: record.id, permissions: new Set(record.permissions) };
}
