import { counterTag } from "../../domain/verification.js";
import type { KeyRecord } from "../../store/ports/key-records.js";
import { refillAt, withCounters, type KeysDeps } from "./key-context.js";

/** The counter writes of one key update, split around its document write. */
export interface CarriedCredits {
  /** After the write won: the balance leaves its old tag, or takes the requested value under an unchanged tag. */
  won(): Promise<void>;
  /** After the write lost or was refused: removes the copy when `copyTagUnused` (an identity that was never stored). */
  lost(options: { copyTagUnused: boolean }): Promise<void>;
}

/**
 * The counters side of updating `key` to `next`. A balance lives under the key's identity (else the key) as counter
 * tag, so a key that is relinked needs its balance under the new tag by the time the write lands: this copies it
 * there now (or writes the requested `remaining` there), leaving the source in place; `won` then removes the source.
 * Copying first means the next request to relink the key, which can only read it after this write, finds the balance
 * already in place; a request that loses has removed nothing. A copy that lost stays (unused, and overwritten by any
 * later link there) unless its tag is one nobody else can use. A verification that spends from the source between
 * the copy and the write is not carried over.
 * `remaining`: undefined leaves the balance as it is, null drops it (unlimited), a number replaces it. Rate-limit
 * windows are not carried: they start afresh under the new tag.
 */
export async function carryCredits(
  deps: Pick<KeysDeps, "counters" | "clock">,
  key: KeyRecord,
  next: KeyRecord,
  remaining: number | null | undefined,
): Promise<CarriedCredits> {
  const { counters, clock } = deps;
  const from = counterTag({ keyId: key.id, identityId: key.identityId });
  const to = counterTag({ keyId: next.id, identityId: next.identityId });
  const now = clock.now();
  let copied = false;
  if (from !== to) {
    if (typeof remaining === "number") {
      await withCounters(() => counters.setCredits(to, key.id, remaining, now));
      copied = true;
    } else if (remaining === undefined && key.credits && next.credits) {
      await withCounters(async () => {
        const balance = await counters.readCredits(from, key.id, refillAt(key, now));
        await counters.setCredits(to, key.id, balance ?? 0, now);
      });
      copied = true;
    }
  }
  return {
    async won() {
      if (from === to && typeof remaining === "number") await withCounters(() => counters.setCredits(to, key.id, remaining, now));
      else if (key.credits && (from !== to || remaining === null)) await withCounters(() => counters.deleteCredits(from, key.id));
    },
    async lost({ copyTagUnused }) {
      if (copied && copyTagUnused) await withCounters(() => counters.deleteCredits(to, key.id));
    },
  };
}
