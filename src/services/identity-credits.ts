import type { Credits } from "../../gen/keyward/v1/keys_pb.js";
import { invalid } from "../domain/errors.js";
import type { IdentityRecord } from "../store/ports/key-records.js";
import { creditsConfig } from "./keys/key-input.js";
import { identityBalance, withCounters, type KeysDeps } from "./keys/key-context.js";

/** Credits shared by an identity's keys (Keyward extension); the balance's address is identityBalance (key-context.ts). */
export type IdentityCredits = IdentityRecord["credits"];

/**
 * What an updateIdentity does to the credits, given the mask's paths: `rule` is the identity's new credits rule
 * (undefined: none), `remaining` the balance to write once the record is stored (null: drop it, undefined: keep it).
 * Throws a 400 naming the field, before anything is written, for a refill without a balance or a bad refill day.
 */
export function planIdentityCredits(
  current: IdentityCredits,
  request: Credits | undefined,
  paths: ReadonlySet<string>,
): { rule: IdentityCredits; remaining: number | null | undefined } {
  const setRemaining = paths.has("credits") || paths.has("credits.remaining");
  const setRefill = paths.has("credits") || paths.has("credits.refill");
  if (!setRemaining && !setRefill) return { rule: current, remaining: undefined };
  const remaining = setRemaining ? request?.remaining : undefined;
  if (setRemaining && remaining === undefined) {
    if (setRefill && request?.refill) {
      throw invalid("A refill needs a credit balance.", [{ location: "credits.remaining", message: "required with refill" }]);
    }
    return { rule: undefined, remaining: null };
  }
  if (!current && remaining === undefined) {
    throw invalid("A refill needs a credit balance.", [{ location: "credits.remaining", message: "required with refill on an identity without credits" }]);
  }
  const refill = setRefill ? creditsConfig({ ...request, remaining: remaining ?? 0n } as Credits).config?.refill : current?.refill;
  return { rule: refill ? { refill } : {}, remaining: remaining === undefined ? undefined : Number(remaining) };
}

/**
 * Writes an identity's balance as planned: a number starts (or replaces) it with lastRefillAt = now, null drops it,
 * undefined leaves it. Callers write it where the record's write makes it right: before inserting a new identity (its
 * keys must find the balance in place once they can see the identity), after an update's record write has won.
 */
export async function writeIdentityBalance(
  deps: Pick<KeysDeps, "counters" | "clock">,
  identity: Pick<IdentityRecord, "id">,
  remaining: number | null | undefined,
): Promise<void> {
  const { tag, keyId } = identityBalance(identity);
  if (typeof remaining === "number") await withCounters(() => deps.counters.setCredits(tag, keyId, remaining, deps.clock.now()));
  else if (remaining === null) await withCounters(() => deps.counters.deleteCredits(tag, keyId));
}
