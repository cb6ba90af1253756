import { useEffect, useState } from "preact/hooks";
import type { Identity } from "../../gen/keyward/v1/keys_pb.js";
import { api, can } from "../api.js";
import { rateText } from "../duration.js";
import { navigate } from "../router.js";
import { ConfirmButton, ErrorNote, Guarded, lastUsedText, Loading, NeedNote, Page, useAction, useAsync } from "../ui.js";
import { UsageCard } from "./analytics.js";
import { limitRowsOf, metaOf, RatelimitRows, ratelimitsOf, RefillSelect, type LimitRow } from "./key-form.js";

/**
 * The identity's keys: every api's keys linked to its external id (apis.listKeys per api, the first 100 apis and 100
 * keys of each; an identity's keys are few).
 */
function IdentityKeys({ externalId }: { externalId: string }) {
  const allowed = can("api", "read_api") && can("api", "read_key");
  const keys = useAsync(async () => {
    if (!allowed) return undefined;
    const apis = await api.apis.listApis({ limit: 100 });
    const lists = await Promise.all(apis.data.map(async (a) => (await api.apis.listKeys({ apiId: a.id, externalId, limit: 100 })).data.map((k) => ({ ...k, apiName: a.name }))));
    return lists.flat();
  }, [externalId, allowed]);
  return (
    <div class="card">
      <h2>Keys</h2>
      <NeedNote need={can("api", "read_api") ? ["api", "read_key"] : ["api", "read_api"]} consequence="the identity's keys cannot be listed." />
      <ErrorNote message={keys.error} />
      {keys.loading && <Loading what="Loading the identity's keys" />}
      {keys.data && (keys.data.length === 0 ? <p class="muted">No keys.</p> : (
        <div class="table-wrap">
          <table aria-label="Keys of this identity">
            <thead><tr><th>Key</th><th>API</th><th>Status</th><th>Last used</th></tr></thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.keyId}>
                  <td data-label="Key"><a href={`#/keys/${k.keyId}`}>{k.name ?? k.keyId}</a><div class="muted mono">{k.start}… · {k.keyId}</div></td>
                  <td data-label="API"><a href={`#/apis/${k.apiId}`}>{k.apiName}</a></td>
                  <td data-label="Status"><span class={k.enabled ? "badge ok" : "badge off"}>{k.enabled ? "enabled" : "disabled"}</span></td>
                  <td data-label="Last used">{lastUsedText(k.lastUsedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}

/** The identity's metadata and shared rate limits, saved together (updateIdentity's mask names both). */
function IdentitySettings({ identity, onSaved }: { identity: Identity; onSaved: (updated: Identity) => void }) {
  const [meta, setMeta] = useState(identity.meta && Object.keys(identity.meta).length ? JSON.stringify(identity.meta, null, 2) : "");
  const [rows, setRows] = useState<LimitRow[]>(limitRowsOf(identity.ratelimits));
  const [invalid, setInvalid] = useState<string>();
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const allowed = can("identity", "update_identity");
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const parsedMeta = metaOf(meta);
    const limits = ratelimitsOf(rows);
    const error = parsedMeta.error ?? ("error" in limits ? limits.error : undefined);
    setInvalid(error);
    if (error || "error" in limits) return;
    const updated = await save.run(() => api.identities.updateIdentity({
      identity: identity.id, meta: parsedMeta.meta, ratelimits: limits.ratelimits, updateMask: { paths: ["meta", "ratelimits"] },
    }));
    if (updated?.identity) {
      setSaved(true);
      onSaved(updated.identity);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Metadata and rate limits">
      <h2>Metadata and shared rate limits</h2>
      <p class="hint">Every key of this identity counts against these limits together (a key checks them by name).</p>
      <fieldset class="plain" disabled={!allowed}>
        <label>Metadata (JSON) <textarea rows={3} value={meta} placeholder='{"plan": "pro"}' onInput={(e) => { setSaved(false); setMeta((e.target as HTMLTextAreaElement).value); }} /></label>
        <RatelimitRows rows={rows} onChange={(next) => { setSaved(false); setRows(next); }} />
      </fieldset>
      <ErrorNote message={invalid ?? save.error} />
      {saved && <p class="saved" role="status">Saved.</p>}
      <Guarded type="submit" need={["identity", "update_identity"]} busy={save.busy}>Save metadata and limits</Guarded>
    </form>
  );
}

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
  const remove = useAction();
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
              <RefillSelect value={form.interval} onChange={field("interval")} />
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
      {identity && (
        <>
          <IdentityKeys externalId={identity.externalId} />
          <UsageCard filter={{ identityId: identity.id }} title="Usage of this identity's keys" what="the identity's verifications" />
          <IdentitySettings key={identity.id} identity={identity}
            onSaved={(updated) => { setLatest(updated); info.reload(); }} />
          <div class="card">
            <h2>Delete</h2>
            <p class="hint">Its keys stay and lose the link (and the shared limits and credits) to this identity.</p>
            <ErrorNote message={remove.error} />
            <ConfirmButton need={["identity", "delete_identity"]} label="Delete identity" confirm="Delete identity now" busy={remove.busy}
              onConfirm={() => remove.run(() => api.identities.deleteIdentity({ identity: identityId })).then((done) => done && navigate("/identities"))} />
          </div>
        </>
      )}
      <p><a href="#/identities">← Identities</a></p>
    </Page>
  );
}
