import type { UpdateKeyRequest } from "../../../gen/keyward/v1/keys_pb.js";
import { KeywardError, invalid, notFound } from "../../domain/errors.js";
import { counterTag } from "../../domain/verification.js";
import type { KeyRecord } from "../../store/ports.js";
import type { Principal } from "../context.js";
import { identityFor, moveCredits } from "./identities.js";
import { checkedMeta, creditsConfig, dropUndefined, ratelimitRecords } from "./key-input.js";
import { loadKeyFor, withCounters, type KeysDeps } from "./key-context.js";
import { assignedRbac } from "./key-rbac-input.js";
import { rebaseKey, updateKeyWithRetry } from "./update-key-with-retry.js";

/** keys.updateKey: AIP-134 field masks over a key's settings, its identity link, credits and RBAC assignments. */
export function createKeyUpdater(deps: KeysDeps) {
  const { counters, clock } = deps;

  return async function updateKey(request: UpdateKeyRequest, principal: Principal) {
    const key = await loadKeyFor(deps, principal, request.keyId, "update_key");
    // applyUpdate validates, creates references and moves counters once, from `key`; only the record is retried,
    // rebased onto the fresh read. Counters moved for `key`'s identity and credits are wrong for a key whose
    // identity or credits changed meanwhile, so that case is refused rather than rebased.
    const updated = await applyUpdate(key, request, principal);
    const countersMoved = updated.identityId !== key.identityId || updated.credits !== key.credits;
    const update = await updateKeyWithRetry(deps, principal.workspaceId, key.id, (current) => {
      if (countersMoved && !sameCounters(current, key)) {
        throw new KeywardError("conflict", `The key ${key.id} changed its identity or credits concurrently; retry the request.`);
      }
      return rebaseKey(current, key, updated);
    }, { read: key });
    if (!update) throw notFound(`The key ${key.id} does not exist.`);
    return {};
  };

  /** AIP-134: a listed field takes the request's value, or is cleared when unset there. */
  async function applyUpdate(key: KeyRecord, request: UpdateKeyRequest, principal: Principal): Promise<KeyRecord> {
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
        case "external_id": break; // below, once every input is known to be valid
        case "key_id": case "create_missing": break; // name the key / say how to assign, change nothing themselves
        case "credits": case "credits.remaining": case "credits.refill": break; // below, once
        default: throw invalid(`Cannot update ${path}.`, [{ location: "updateMask", message: `unknown field ${path}` }]);
      }
    }
    // Checks first, writes after: a refused update must not move credits or leave an identity behind.
    const writeCredits = planCreditsUpdate(next, request, paths);
    const rbac = await assignedRbac(deps, principal, {
      permissions: paths.has("permissions") ? request.permissions : undefined,
      roles: paths.has("roles") ? request.roles : undefined,
      createMissing: request.createMissing,
    });
    if (rbac.permissions) next.permissions = rbac.permissions;
    if (rbac.roles) next.roles = rbac.roles;
    if (paths.has("external_id")) {
      const identity = request.externalId ? await identityFor(deps, principal.workspaceId, request.externalId) : undefined;
      await moveCredits(deps, key, identity?.id);
      next.identityId = identity?.id;
    }
    await writeCredits?.(now);
    dropUndefined(next);
    return next;
  }

  /**
   * Validates the credits part of an update and sets `next.credits`; returns the counter write to run once the key's
   * identity (hence its counter tag) is final, or undefined when the balance stays as it is.
   */
  function planCreditsUpdate(next: KeyRecord, request: UpdateKeyRequest, paths: Set<string>): ((now: number) => Promise<void>) | undefined {
    const setRemaining = paths.has("credits") || paths.has("credits.remaining");
    const setRefill = paths.has("credits") || paths.has("credits.refill");
    if (!setRemaining && !setRefill) return undefined;
    const tag = () => counterTag({ keyId: next.id, identityId: next.identityId });
    const remaining = setRemaining ? request.credits?.remaining : undefined;
    if (setRemaining && remaining === undefined) {
      // Unlimited and a refill rule at once (a whole `credits` without `remaining`) contradict each other.
      if (setRefill && request.credits?.refill) {
        throw invalid("A refill needs a credit balance.", [{ location: "credits.remaining", message: "required with refill" }]);
      }
      delete next.credits;
      return () => withCounters(() => counters.deleteCredits(tag(), next.id));
    }
    const refillConfig = setRefill ? creditsConfig({ ...request.credits, remaining: remaining ?? 0n } as never).config?.refill : next.credits?.refill;
    if (!next.credits && remaining === undefined) {
      throw invalid("A refill needs a credit balance.", [{ location: "credits.remaining", message: "required with refill on an unlimited key" }]);
    }
    next.credits = refillConfig ? { refill: refillConfig } : {};
    if (remaining === undefined) return undefined;
    return (now) => withCounters(() => counters.setCredits(tag(), next.id, Number(remaining), now));
  }
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
  return a.identityId === b.identityId && JSON.stringify(a.credits) === JSON.stringify(b.credits);
}
