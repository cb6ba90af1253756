import { useState } from "preact/hooks";
import { api } from "../api.js";
import { durationText } from "../duration.js";
import { navigate } from "../router.js";
import { KeyUsage } from "./analytics.js";
import { ConfirmButton, ErrorNote, formatTime, Guarded, lastUsedText, Loading, NeedNote, OneTimeSecret, Page, useAction, useAsync } from "../ui.js";
import type { Key } from "../../gen/keyward/v1/keys_pb.js";
import { parseDuration } from "../duration.js";
import { fieldsOf, KeyForm, keyRequestOf, type KeyFields } from "./key-form.js";

/** Every field updateKey can change, saved together: a field left empty is cleared. */
const UPDATE_PATHS = ["name", "external_id", "meta", "expires", "credits", "ratelimits", "enabled", "roles", "permissions"];

function EditKey({ k, onSaved }: { k: Key; onSaved: () => void }) {
  const [invalid, setInvalid] = useState<string>();
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const submit = async (fields: KeyFields) => {
    setSaved(false);
    const { error, request } = keyRequestOf(fields);
    setInvalid(error);
    if (!request) return;
    const done = await save.run(() => api.keys.updateKey({ keyId: k.keyId, ...request, updateMask: { paths: UPDATE_PATHS } }));
    if (done) {
      setSaved(true);
      onSaved();
    }
  };
  return (
    <>
      <NeedNote need={["api", "update_key"]} consequence="the key cannot be changed here." />
      <KeyForm key={k.updatedAt ?? k.createdAt} label="Edit the key" initial={fieldsOf(k)} creating={false} need={["api", "update_key"]}
        busy={save.busy} error={invalid ?? save.error} submitLabel="Save key" onSubmit={submit} />
      {saved && <p class="saved" role="status">Saved.</p>}
    </>
  );
}

/** A new secret for the key; the old one keeps verifying for the grace period ("0 s": revoked at once). */
function Reroll({ keyId }: { keyId: string }) {
  const [grace, setGrace] = useState("1 h");
  const [invalid, setInvalid] = useState<string>();
  const [created, setCreated] = useState<{ keyId: string; key: string }>();
  const action = useAction();
  if (created) {
    return (
      <div class="card">
        <OneTimeSecret label="New key" value={created.key} onDone={() => navigate(`/keys/${created.keyId}`)} />
        <p><a href={`#/keys/${created.keyId}`}>Open the new key</a></p>
      </div>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    const parsed = grace.trim() === "0" ? { ms: 0 } : parseDuration(grace, 0);
    setInvalid("error" in parsed ? `Grace period: ${parsed.error}` : undefined);
    if ("error" in parsed) return;
    const answer = await action.run(() => api.keys.rerollKey({ keyId, expiration: BigInt(parsed.ms) }));
    if (answer) setCreated({ keyId: answer.keyId, key: answer.key });
  };
  return (
    <form class="card inline" onSubmit={submit} aria-label="Reroll the key">
      <label>Grace period for the old key <input value={grace} placeholder="0 s (now), 1 h, 1 d" onInput={(e) => setGrace((e.target as HTMLInputElement).value)} /></label>
      <Guarded type="submit" need={["api", "create_key"]} busy={action.busy}>Reroll key</Guarded>
      <ErrorNote message={invalid ?? action.error} />
    </form>
  );
}

function SetCredits({ keyId, onDone }: { keyId: string; onDone: () => void }) {
  const [value, setValue] = useState("");
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const v = value.trim();
    const done = await action.run(() => api.keys.updateCredits({ keyId, operation: "set", value: v === "" ? undefined : BigInt(v) }));
    if (done) {
      setValue("");
      onDone();
    }
  };
  return (
    <form class="inline" onSubmit={submit} aria-label="Set credits">
      <label>Set credits <input value={value} inputMode="numeric" pattern="[0-9]*" placeholder="empty = unlimited" onInput={(e) => setValue((e.target as HTMLInputElement).value)} /></label>
      <Guarded type="submit" need={["api", "update_key"]} busy={action.busy}>Set credits</Guarded>
      <ErrorNote message={action.error} />
    </form>
  );
}

export function KeyPage({ keyId }: { keyId: string }) {
  const key = useAsync(() => api.keys.getKey({ keyId }), [keyId]);
  const change = useAction();
  const k = key.data?.key;
  return (
    <Page title={k ? `Key ${k.name ?? k.keyId}` : "Key"} intro={<span class="mono">{keyId}</span>}>
      <ErrorNote message={key.error ?? change.error} />
      {key.loading && <Loading what="Loading the key" />}
      {k && (
        <>
          <div class="card">
            <dl class="facts">
              <dt>Status</dt><dd><span class={k.enabled ? "badge ok" : "badge off"}>{k.enabled ? "enabled" : "disabled"}</span></dd>
              <dt>Start</dt><dd class="mono">{k.start}…</dd>
              <dt>API</dt><dd><a href={`#/apis/${k.apiId}`} class="mono">{k.apiId}</a></dd>
              <dt>Created</dt><dd>{formatTime(k.createdAt)}</dd>
              <dt>Last used</dt><dd>{lastUsedText(k.lastUsedAt)}</dd>
              <dt>Expires</dt><dd>{k.expires === undefined ? "never" : formatTime(k.expires)}</dd>
              <dt>Credits</dt><dd>{k.credits?.remaining === undefined ? "unlimited" : String(k.credits.remaining)}
                {k.credits?.refill && ` (refill ${k.credits.refill.interval} to ${k.credits.refill.amount}${k.credits.refill.refillDay ? ` on day ${k.credits.refill.refillDay}` : ""})`}</dd>
              <dt>Identity</dt><dd>{k.identity ? <span class="mono">{k.identity.externalId} ({k.identity.id})</span> : "none"}</dd>
              <dt>Environment</dt><dd>{k.environment ?? "—"}</dd>
            </dl>
            <div class="actions">
              <Guarded need={["api", "update_key"]} busy={change.busy}
                onClick={() => change.run(() => api.keys.updateKey({ keyId, enabled: !k.enabled })).then(key.reload)}>{k.enabled ? "Disable" : "Enable"}</Guarded>
              <ConfirmButton need={["api", "delete_key"]} label="Delete key" confirm="Delete for good" busy={change.busy}
                onConfirm={() => change.run(() => api.keys.deleteKey({ keyId })).then((done) => done && navigate(`/apis/${k.apiId}`))} />
            </div>
            <SetCredits keyId={keyId} onDone={key.reload} />
          </div>
          <div class="grid2">
            <div class="card">
              <h2>Rate limits</h2>
              {k.ratelimits.length === 0 ? <p class="muted">None.</p> : (
                <table><thead><tr><th>Name</th><th>Limit</th><th>Window</th><th>Auto-apply</th></tr></thead>
                  <tbody>{k.ratelimits.map((r) => <tr key={r.name}><td data-label="Name">{r.name}</td><td data-label="Limit">{String(r.limit)}</td><td data-label="Window">{durationText(r.duration)}</td><td data-label="Auto-apply">{r.autoApply ? "yes" : "no"}</td></tr>)}</tbody>
                </table>
              )}
            </div>
            <div class="card">
              <h2>Roles</h2>
              {k.roles.length === 0 ? <p class="muted">None.</p> : <ul class="perms">{k.roles.map((r) => <li key={r} class="mono">{r}</li>)}</ul>}
              <h2>Permissions</h2>
              {k.permissions.length === 0 ? <p class="muted">None.</p> : <ul class="perms">{k.permissions.map((p) => <li key={p} class="mono">{p}</li>)}</ul>}
            </div>
          </div>
          <KeyUsage keyId={keyId} />
          <EditKey k={k} onSaved={key.reload} />
          <h2>Reroll</h2>
          <p class="hint">A new key takes this one's settings; this one keeps verifying until the grace period ends (then EXPIRED).</p>
          <Reroll keyId={keyId} />
        </>
      )}
    </Page>
  );
}
