import type { DescMessage, DescMethodUnary, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { clientAddress } from "../domain/client-address.js";
import { KeywardError } from "../domain/errors.js";
import type { AddressRange } from "../domain/ip-allow-list.js";
import { grantedResourceIds, satisfies, type Requirement } from "../domain/permissions.js";

/** The authenticated caller: a live root key of one workspace. */
export interface Principal {
  workspaceId: string;
  rootKeyId: string;
  permissions: ReadonlySet<string>;
}

/**
 * The transport's view of where a request came from; read only by operations that record it (the audit log) and by
 * verification of keys whose api has an IP allow-list. Transports build it lazily: nothing else reads it.
 */
export interface RequestOrigin {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  socket?: { remoteAddress?: string } | null;
}

/**
 * A call's deadline as the writes see it. JS runs one turn at a time, so "answered as expired" and "committing" are
 * two states read and set synchronously: a call is never both.
 */
export interface CommitGate {
  /**
   * Called immediately before a call's first durable write (and again, harmlessly, before later ones). Throws
   * DEADLINE_EXCEEDED, and the call writes nothing, when its deadline has passed or it was already answered as
   * expired; otherwise marks the call as committing, after which it is answered with its real result, however late.
   */
  beginCommit(): void;
}

/** A call's deadline passed before it wrote anything, and nothing was written; RPC transports answer DEADLINE_EXCEEDED. */
export class DeadlineExceededError extends Error {
  override name = "DeadlineExceededError";
}

/**
 * The client address of a request: its peer, or what a trusted proxy forwarded (domain/client-address.ts).
 * Undefined when the transport gave no origin or the address is unknown.
 */
export function clientAddressOf(origin: RequestOrigin | undefined, trustedProxies: readonly AddressRange[]): string | undefined {
  if (!origin) return undefined;
  const { headers } = origin;
  return clientAddress(
    { peer: origin.socket?.remoteAddress, forwarded: headers.forwarded, xForwardedFor: headers["x-forwarded-for"] },
    trustedProxies,
  );
}

/** What every operation receives besides its request. Public operations get no principal. */
export interface CallContext {
  principal: Principal;
  requestId: string;
  origin?: RequestOrigin;
  /** Absent when the call has no deadline. */
  commit?: CommitGate;
}

/**
 * The one authorization check: passes when the principal holds `type.*.action` or `type.<id>.action`;
 * otherwise a 403 that names the permission to grant.
 */
export function authorize(principal: Principal, need: Requirement): void {
  if (satisfies(principal.permissions, need)) return;
  const wildcard = `${need.resourceType}.*.${need.action}`;
  const named = need.resourceId ? ` or ${need.resourceType}.${need.resourceId}.${need.action}` : "";
  throw new KeywardError("forbidden", `Missing permission: ${wildcard}${named}`, {
    reason: "INSUFFICIENT_PERMISSIONS",
  });
}

/**
 * Authorization of a listing: undefined (no narrowing) when the principal holds `type.*.action`, else exactly the
 * ids its `type.<id>.action` grants name; a 403 like `authorize` when it holds neither. The store narrows the listing
 * by these ids, so paging stays keyset over what the caller may see.
 */
export function listableIds(principal: Principal, resourceType: string, action: string): string[] | undefined {
  const granted = grantedResourceIds(principal.permissions, resourceType, action);
  if (granted === "all") return undefined;
  if (granted.length === 0) authorize(principal, { resourceType, action });
  return granted;
}

type UnaryMethods<S extends DescService> = {
  [K in keyof S["method"]]: S["method"][K] extends DescMethodUnary<infer I, infer O> ? [I, O] : never;
};

/** One handler per RPC of a service: request message in, response init out. Transports wrap these. */
export type ServiceHandlers<S extends DescService> = {
  [K in keyof UnaryMethods<S>]: UnaryMethods<S>[K] extends [infer I extends DescMessage, infer O extends DescMessage]
    ? (request: MessageShape<I>, context: CallContext) => Promise<MessageInitShape<O>>
    : never;
};
