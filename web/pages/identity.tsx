import { useEffect, useState } from "preact/hooks";
import { api, can } from "../api.js";
import { rateText } from "../duration.js";
import { ErrorNote, Guarded, Loading, Page, useAction, useAsync } from "../ui.js";

/** The credits form: an empty balance means the identity has no shared credits. */
interface Form {
  remaining: string;
  interval: "" | "daily" | "monthly";
  amount: string;
  refillDay: string;
}

/** What getIdentity and updateIdentity answer about credits. */
interface Credits {
  remaining?: bigint;
  refill?: { interval: string; amount: bigint; refillDay?: number };
}

function formOf(credits: Credits | undefined): Form {
  const refill = credits?.refill;
  return {
    remaining: credits?.remaining === undefined ? "" : String(credits.remaining),
    interval: (refill?.interval ?? "") as Form["interval"],
    amount: refill ? String(refill.amount) : "",
    refillDay: refill?.refillDay === undefined ? "" : String(refill.refillDay),
  };
}

/** The credits as one line: "120 left, refilled to 500 on day 1 of each month", or "none". */
export function creditsText(credits: Credits | undefined): string {
  if (!credits) return "none";
  const left = `${String(credits.remaining ?? 0n)} left`;
  const refill = credits.refill;
  if (!refill) return left;
  return refill.interval === "daily"
    ? `${left}, refilled to ${String(refill.amount)} daily`
    : `${left}, refilled to ${String(refill.amount)} on day ${refill.refillDay ?? 1} of each month`;
}

/**
 * One identity: its rate limits, and its shared credits (a Keyward extension), which every key of the identity spends
 * from beside its own. The form saves the whole credits setting at once (updateIdentity's mask names `credits`): an
 * empty balance removes them. The server checks every value and names the field it refuses.
 */
export function IdentityPage({ identityId }: { identityId: string }) {
  const info = useAsync(() => api.identities.getIdentity({ identity: identityId }), [identityId]);
  const [form, setForm] = useState<Form>();
  const [saved, setSaved] = useState(false);
  const save = useAction();
  // What the last save answered, shown at once rather than the stale reading until the reload lands.
  const [latest, setLatest] = useState<NonNullable<typeof info.data>["identity"]>();
  useEffect(() => setLatest(undefined), [info.data]);
  const identity = latest ?? info.data?.identity;
  useEffect(() => void (identity && setForm(formOf(identity.credits))), [identity]);
  const allowed = can("identity", "update_identity");
  const field = (name: keyof Form) => (e: Event) => {
    setSaved(false);
    setForm({ ...(form as Form), [name]: (e.target as HTMLInputElement | HTMLSelectElement).value });
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!form) return;
    const remaining = form.remaining.trim();
    const refill = form.interval && {
      interval: form.interval,
      amount: BigInt(form.amount.trim() || "0"),
      refillDay: form.interval === "monthly" && form.refillDay.trim() ? Number(form.refillDay) : undefined,
    };
    const updated = await save.run(() => api.identities.updateIdentity({
      identity: identityId,
      credits: remaining === "" && !refill ? undefined : { remaining: remaining === "" ? undefined : BigInt(remaining), refill: refill || undefined },
      updateMask: { paths: ["credits"] },
    }));
    if (updated?.identity) {
      setLatest(updated.identity);
      setSaved(true);
      info.reload();
    }
  };
  return (
    <Page title={identity ? `Identity ${identity.externalId}` : "Identity"} intro={<span class="mono">{identityId}</span>}>
      <ErrorNote message={info.error} />
      {info.loading && !identity && <Loading what="Loading the identity" />}
      {identity && (
        <section class="card" aria-label="Identity">
          <p>Rate limits: {identity.ratelimits.length === 0 ? "none" : identity.ratelimits.map((r) => `${r.name}: ${rateText(r.limit, r.duration)}`).join(", ")}</p>
          <p>Shared credits: <strong data-testid="identity-credits">{creditsText(identity.credits)}</strong></p>
        </section>
      )}
      {form && (
        <form class="card" onSubmit={submit} aria-label="Shared credits">
          <h2>Shared credits</h2>
          <p class="hint">Every key of this identity spends from these credits as well as from its own: a verification is refused (USAGE_EXCEEDED) when either runs short, and then spends from neither.</p>
          {!allowed && <p class="hint">Your root key lacks identity.*.update_identity: the credits are read only.</p>}
          <fieldset class="plain" disabled={!allowed}>
            <div class="fields">
              <label>Balance <input value={form.remaining} inputMode="numeric" type="number" min={0} placeholder="none" onInput={field("remaining")} /></label>
              <label>Refill
                <select aria-label="Refill" value={form.interval} onChange={field("interval")}>
                  <option value="">never</option>
                  <option value="daily">daily</option>
                  <option value="monthly">monthly</option>
                </select>
              </label>
              <label>Refill amount <input value={form.amount} inputMode="numeric" type="number" min={1} onInput={field("amount")} /></label>
              <label>Refill day <input value={form.refillDay} inputMode="numeric" type="number" min={1} max={31} placeholder="monthly only" onInput={field("refillDay")} /></label>
            </div>
            <p class="hint">A refill sets the balance back to the amount at 00:00 UTC (daily, or on the day of each month). Leave the balance empty to remove the shared credits.</p>
          </fieldset>
          <ErrorNote message={save.error} />
          {saved && <p class="saved" role="status">Saved.</p>}
          <Guarded type="submit" need={["identity", "update_identity"]} busy={save.busy}>Save credits</Guarded>
        </form>
      )}
      <p><a href="#/identities">← Identities</a></p>
    </Page>
  );
}
