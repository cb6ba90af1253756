import type { UpdateKeyRequest } from "../../../gen/keyward/v1/keys_pb.js";
import { aborted, invalid, notFound } from "../../domain/errors.js";
import { UniqueViolationError } from "../../store/errors.js";
import type { KeyRecord } from "../../store/ports/key-records.js";
import type { Principal } from "../context.js";
import { carryCredits } from "./carry-credits.js";
import { identityToLink } from "./identities.js";
import { checkedMeta, creditsConfig, dropUndefined, ratelimitRecords } from "./key-input.js";
import { loadKeyFor, type KeysDeps } from "./key-context.js";
import { assignedRbac } from "./key-rbac-input.js";
import { rebaseKey, updateKeyWithRetry, type KeyUpdate } from "./update-key-with-retry.js";

/**
 * Attempts to link a new identity: each failed one means a concurrent request created the same external id first,
 * whose identity the next attempt links to instead.
 */
const IDENTITY_ATTEMPTS = 3;

/** What an update does besides the record: the identity to link (`null` unlinks) and the balance to write. */
interface UpdatePlan {
  next: KeyRecord;
  /** Absent: the link stays; null: unlinked; else the external id of the identity to link (created if needed). */
  externalId?: string | null;
  /** Absent: the balance stays; null: credits become unlimited (the balance goes); else the new balance. */
  remaining?: number | null;
}

/** keys.updateKey: AIP-134 field masks over a key's settings, its identity link, credits and RBAC assignments. */
export function createKeyUpdater(deps: KeysDeps) {
  const { clock } = deps;

  return async function updateKey(request: UpdateKeyRequest, principal: Principal) {
    const key = await loadKeyFor(deps, principal, request.keyId, "update_key");
    // Checks first (referenced roles and permissions are created then), then one write of the key together with a new
    // identity it links to: a call answered "retry" leaves no identity or audit record behind, and no balance that
    // anything reads.
    const plan = await planUpdate(key, request, principal);
    if (!(await writeKey(principal.workspaceId, key, plan))) throw notFound(`The key ${key.id} does not exist.`);
    return {};
  };

  /**
   * Stores the plan's record, rebased onto any newer read, linked as the plan says (a new identity in the same write),
   * with the counters carried around that write (carry-credits.ts). Those are computed from `key`'s identity and
   * credits, so an update that moves them is not rebased onto a key whose identity or credits changed meanwhile but
   * refused, having written nothing. Resolves to false when the key is gone.
   */
  async function writeKey(workspaceId: string, key: KeyRecord, plan: UpdatePlan): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const identity = plan.externalId ? await identityToLink(deps, workspaceId, plan.externalId) : undefined;
      const next = plan.externalId === undefined ? plan.next : linkedTo(plan.next, identity?.record.id);
      const movesCounters = next.identityId !== key.identityId || next.credits !== key.credits;
      const credits = await carryCredits(deps, key, next, plan.remaining);
      // A copy under the tag of an identity this request minted is nobody else's: a lost write takes it back.
      const lost = () => credits.lost({ copyTagUnused: identity?.isNew === true });
      let update: KeyUpdate | undefined;
      try {
        update = await updateKeyWithRetry(deps, workspaceId, key.id, (current) => {
          if (movesCounters && !sameCounters(current, key)) {
            throw aborted(`The key ${key.id} changed its identity or credits concurrently; retry the request.`);
          }
          return rebaseKey(current, key, next);
        }, { read: key, newIdentity: identity?.isNew ? identity.record : undefined });
      } catch (error) {
        // The write's own failure is the answer; a copy that could not be taken back sits under a tag nothing reads.
        await lost().catch(() => undefined);
        // Another request created this external id's identity first: the next attempt links to theirs.
        const taken = identity?.isNew && error instanceof UniqueViolationError && error.collection === "identities";
        if (!taken || attempt >= IDENTITY_ATTEMPTS) throw error;
        continue;
      }
      if (!update) {
        await lost();
        return false;
      }
      await credits.won();
      return true;
    }
  }

  /** AIP-134: a listed field takes the request's value, or is cleared when unset there. Writes nothing but references. */
  async function planUpdate(key: KeyRecord, request: UpdateKeyRequest, principal: Principal): Promise<UpdatePlan> {
    const now = clock.now();
    // The refill is one rule: a mask naming a sub-field of it (REST derives `credits.refill.amount` from a nested
    // body) replaces the whole refill.
    const paths = new Set(
      [...(request.updateMask?.paths.length ? request.updateMask.paths : presentFields(request))].map((path) =>
        path.startsWith("credits.refill.") ? "credits.refill" : path,
      ),
    );
    const next: KeyRecord = { ...key, updatedAt: now };
    for (const path of paths) {
      switch (path) {
        case "name": next.name = request.name; break;
        case "meta": next.meta = checkedMeta(request.meta); break;
        case "expires": next.expires = request.expires === undefined ? undefined : Number(request.expires); break;
        case "enabled": if (request.enabled !== undefined) next.enabled = request.enabled; break;
        case "environment": next.environment = request.environment; break;
        case "ratelimits": next.ratelimits = ratelimitRecords(request.ratelimits, { now, randomBytes: deps.randomBytes }); break;
        case "permissions": case "roles": break; // below, resolved (and created) once every other input is valid
        case "external_id": break; // linked when the record is written
        case "key_id": case "create_missing": break; // name the key / say how to assign, change nothing themselves
        case "credits": case "credits.remaining": case "credits.refill": break; // below, once
        default: throw invalid(`Cannot update ${path}.`, [{ location: "updateMask", message: `unknown field ${path}` }]);
      }
    }
    const remaining = planCreditsUpdate(next, request, paths, now);
    const rbac = await assignedRbac(deps, principal, {
      permissions: paths.has("permissions") ? request.permissions : undefined,
      roles: paths.has("roles") ? request.roles : undefined,
      createMissing: request.createMissing,
    });
    if (rbac.permissions) next.permissions = rbac.permissions;
    if (rbac.roles) next.roles = rbac.roles;
    dropUndefined(next);
    return {
      next,
      ...(paths.has("external_id") && { externalId: request.externalId || null }),
      ...(remaining !== undefined && { remaining }),
    };
  }

  /**
   * Validates the credits part of an update and sets `next.credits`; returns the balance to write once the record is
   * (null: none, credits are now unlimited), or undefined when the balance stays as it is.
   */
  function planCreditsUpdate(next: KeyRecord, request: UpdateKeyRequest, paths: Set<string>, now: number): number | null | undefined {
    const setRemaining = paths.has("credits") || paths.has("credits.remaining");
    const setRefill = paths.has("credits") || paths.has("credits.refill");
    if (!setRemaining && !setRefill) return undefined;
    const remaining = setRemaining ? request.credits?.remaining : undefined;
    if (setRemaining && remaining === undefined) {
      // Unlimited and a refill rule at once (a whole `credits` without `remaining`) contradict each other.
      if (setRefill && request.credits?.refill) {
        throw invalid("A refill needs a credit balance.", [{ location: "credits.remaining", message: "required with refill" }]);
      }
      delete next.credits;
      return null;
    }
    const refillConfig = setRefill ? creditsConfig({ ...request.credits, remaining: remaining ?? 0n } as never).config?.refill : next.credits?.refill;
    if (!next.credits && remaining === undefined) {
      throw invalid("A refill needs a credit balance.", [{ location: "credits.remaining", message: "required with refill on an unlimited key" }]);
    }
    const base = remaining === undefined ? next.credits?.base : Number(remaining);
    next.credits = { ...(refillConfig && { refill: refillConfig }), ...(base !== undefined && { base }), changedAt: now };
    return remaining === undefined ? undefined : Number(remaining);
  }
}

/** `key` linked to the identity with this id, or to none. */
function linkedTo(key: KeyRecord, identityId: string | undefined): KeyRecord {
  const { identityId: _previous, ...rest } = key;
  return identityId === undefined ? rest : { ...rest, identityId };
}

/** Without a mask, every field the request sets (AIP-134's "no mask" rule; lists only when non-empty). */
function presentFields(request: UpdateKeyRequest): Set<string> {
  const fields = new Set<string>();
  const scalars: [string, unknown][] = [
    ["name", request.name], ["meta", request.meta], ["expires", request.expires], ["enabled", request.enabled],
    ["environment", request.environment], ["external_id", request.externalId], ["credits", request.credits],
  ];
  for (const [name, value] of scalars) if (value !== undefined) fields.add(name);
  if (request.ratelimits.length > 0) fields.add("ratelimits");
  if (request.permissions.length > 0) fields.add("permissions");
  if (request.roles.length > 0) fields.add("roles");
  return fields;
}

/** Whether two reads of a key keep their balance under the same counter tag with the same credits rule. */
function sameCounters(a: KeyRecord, b: KeyRecord): boolean {
  // The rule only: a concurrent updateCredits moves the balance and its changedAt, not where or how it is kept.
  return a.identityId === b.identityId && (a.credits === undefined) === (b.credits === undefined)
    && JSON.stringify(a.credits?.refill) === JSON.stringify(b.credits?.refill);
}
