import type { JsonObject } from "@bufbuild/protobuf";
import { useState } from "preact/hooks";
import type { Key } from "../../gen/keyward/v1/keys_pb.js";
import { durationText, parseDuration } from "../duration.js";
import { ErrorNote, Guarded } from "../ui.js";
import { parseUtc, utcText } from "../utc-time.js";

/** One rate limit of a form, as typed. */
export interface LimitRow {
  name: string;
  limit: string;
  window: string;
  autoApply: boolean;
}

/** Every field of a key a person can set, as typed; the same form creates a key and edits one. */
export interface KeyFields {
  name: string;
  externalId: string;
  expires: string;
  meta: string;
  roles: string;
  permissions: string;
  credits: string;
  refill: "" | "daily" | "monthly";
  refillAmount: string;
  refillDay: string;
  ratelimits: LimitRow[];
  enabled: boolean;
  /** Create only. */
  prefix: string;
  recoverable: boolean;
}

export const EMPTY_KEY: KeyFields = {
  name: "", externalId: "", expires: "", meta: "", roles: "", permissions: "", credits: "", refill: "", refillAmount: "", refillDay: "",
  ratelimits: [], enabled: true, prefix: "", recoverable: false,
};

/** The form's fields of an existing key. */
export function fieldsOf(k: Key): KeyFields {
  const refill = k.credits?.refill;
  return {
    ...EMPTY_KEY,
    name: k.name ?? "",
    externalId: k.identity?.externalId ?? "",
    expires: k.expires === undefined ? "" : utcText(Number(k.expires)),
    meta: k.meta && Object.keys(k.meta).length ? JSON.stringify(k.meta, null, 2) : "",
    roles: k.roles.join(", "),
    permissions: k.permissions.join(", "),
    credits: k.credits?.remaining === undefined ? "" : String(k.credits.remaining),
    refill: (refill?.interval ?? "") as KeyFields["refill"],
    refillAmount: refill ? String(refill.amount) : "",
    refillDay: refill?.refillDay === undefined ? "" : String(refill.refillDay),
    ratelimits: limitRowsOf(k.ratelimits),
    enabled: k.enabled,
  };
}

const list = (text: string) => [...new Set(text.split(",").map((s) => s.trim()).filter(Boolean))];
const whole = (text: string) => /^\d{1,15}$/.test(text.trim());

/** The API's rate limits of the typed rows, or the first thing wrong with them, in words. */
export function ratelimitsOf(rows: readonly LimitRow[]) {
  const ratelimits = [];
  for (const [i, r] of rows.entries()) {
    const window = parseDuration(r.window);
    const which = `Rate limit ${i + 1}${r.name.trim() ? ` (${r.name.trim()})` : ""}`;
    if (!r.name.trim()) return { error: `${which}: a name is required.` };
    if (!whole(r.limit)) return { error: `${which}: the limit must be a whole number of requests.` };
    if ("error" in window) return { error: `${which}: ${window.error}` };
    ratelimits.push({ name: r.name.trim(), limit: BigInt(r.limit.trim()), duration: BigInt(window.ms), autoApply: r.autoApply });
  }
  return { ratelimits };
}

/** The typed rows of existing rate limits. */
export function limitRowsOf(ratelimits: readonly { name: string; limit: bigint; duration: bigint; autoApply: boolean }[]): LimitRow[] {
  return ratelimits.map((r) => ({ name: r.name, limit: String(r.limit), window: durationText(r.duration), autoApply: r.autoApply }));
}

/** Parses a metadata text box: empty is none; anything but a JSON object is refused in words. */
export function metaOf(text: string): { meta?: JsonObject; error?: string } {
  if (!text.trim()) return {};
  const refusal = { error: "Metadata must be a JSON object, e.g. {\"plan\": \"pro\"}." };
  try {
    const meta = JSON.parse(text) as unknown;
    return meta !== null && typeof meta === "object" && !Array.isArray(meta) ? { meta: meta as JsonObject } : refusal;
  } catch {
    return refusal;
  }
}

/** Rate-limit rows to add, edit and remove; each row a labelled group. */
/** The refill interval of a key's or an identity's credits: never, daily or monthly (value "", "daily", "monthly"). */
export function RefillSelect({ value, onChange }: { value: string; onChange: (event: Event) => void }) {
  return (
    <label>Refill
      <select aria-label="Refill" value={value} onChange={onChange}>
        <option value="">never</option>
        <option value="daily">daily</option>
        <option value="monthly">monthly</option>
      </select>
    </label>
  );
}

export function RatelimitRows({ rows, onChange }: { rows: LimitRow[]; onChange: (rows: LimitRow[]) => void }) {
  const set = (i: number, change: Partial<LimitRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <fieldset class="limits">
      <legend>Rate limits</legend>
      {rows.length === 0 && <p class="muted">None.</p>}
      {rows.map((r, i) => (
        <div class="fields" role="group" aria-label={`Rate limit ${i + 1}`} key={i}>
          <label>Limit name <input value={r.name} maxLength={128} placeholder="requests" onInput={(e) => set(i, { name: (e.target as HTMLInputElement).value })} /></label>
          <label>Limit <input value={r.limit} inputMode="numeric" onInput={(e) => set(i, { limit: (e.target as HTMLInputElement).value })} /></label>
          <label>Window <input value={r.window} placeholder="60 s, 5 min, 1 h" onInput={(e) => set(i, { window: (e.target as HTMLInputElement).value })} /></label>
          <label class="check"><input type="checkbox" checked={r.autoApply} onChange={(e) => set(i, { autoApply: (e.target as HTMLInputElement).checked })} /> Auto-apply</label>
          <div class="submit"><button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>Remove limit {i + 1}</button></div>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, { name: "", limit: "", window: "60 s", autoApply: true }])}>Add a rate limit</button>
    </fieldset>
  );
}

/** The API's fields of a filled-in form, or the first thing wrong with it, in words. */
export function keyRequestOf(f: KeyFields) {
  const expires = parseUtc(f.expires);
  if (expires.error) return { error: `Expires: ${expires.error}` };
  const { meta, error: metaError } = metaOf(f.meta);
  if (metaError) return { error: metaError };
  if (f.credits.trim() && !whole(f.credits)) return { error: `Credits must be a whole number (0 or more), not “${f.credits.trim()}”.` };
  if (f.refill && !f.credits.trim()) return { error: "A refill needs a credit balance to refill." };
  if (f.refill && !whole(f.refillAmount)) return { error: "The refill amount must be a whole number." };
  const limits = ratelimitsOf(f.ratelimits);
  if ("error" in limits) return { error: limits.error };
  const ratelimits = limits.ratelimits;
  const credits = f.credits.trim() === "" ? undefined : {
    remaining: BigInt(f.credits.trim()),
    refill: f.refill ? { interval: f.refill, amount: BigInt(f.refillAmount.trim()), refillDay: f.refill === "monthly" && f.refillDay.trim() ? Number(f.refillDay) : undefined } : undefined,
  };
  return {
    request: {
      name: f.name.trim() || undefined,
      externalId: f.externalId.trim() || undefined,
      expires: expires.ms === undefined ? undefined : BigInt(expires.ms),
      meta,
      roles: list(f.roles),
      permissions: list(f.permissions),
      credits,
      ratelimits,
      enabled: f.enabled,
    },
  };
}

/**
 * The key form: name, identity, expiry, metadata, roles, permissions, credits and refill, rate limits, enabled (and
 * on create: prefix, recoverable). Checked here first so a mistake is named in words; the server checks again.
 */
export function KeyForm(props: {
  label: string;
  initial: KeyFields;
  creating: boolean;
  need: [string, string];
  busy: boolean;
  error?: string;
  submitLabel: string;
  onSubmit: (fields: KeyFields) => void;
}) {
  const [f, setF] = useState<KeyFields>(props.initial);
  const text = (name: keyof KeyFields) => (e: Event) => setF({ ...f, [name]: (e.target as HTMLInputElement).value });
  const flag = (name: "enabled" | "recoverable") => (e: Event) => setF({ ...f, [name]: (e.target as HTMLInputElement).checked });
  return (
    <form class="card" aria-label={props.label} onSubmit={(e) => { e.preventDefault(); props.onSubmit(f); }}>
      <h2>{props.label}</h2>
      <div class="fields">
        <label>Name <input value={f.name} maxLength={255} onInput={text("name")} /></label>
        {props.creating && <label>Prefix <input value={f.prefix} maxLength={16} pattern="[a-zA-Z0-9_]*" onInput={text("prefix")} /></label>}
        <label>External id <input value={f.externalId} maxLength={255} placeholder="the identity (user, tenant)" onInput={text("externalId")} /></label>
        <label>Expires (UTC) <input value={f.expires} maxLength={30} placeholder="never, or YYYY-MM-DD HH:MM" onInput={text("expires")} /></label>
        <label>Roles <input value={f.roles} placeholder="comma-separated role names" onInput={text("roles")} /></label>
        <label>Permissions <input value={f.permissions} placeholder="comma-separated, e.g. documents.read" onInput={text("permissions")} /></label>
        <label>Credits <input value={f.credits} inputMode="numeric" placeholder="unlimited" onInput={text("credits")} /></label>
        <RefillSelect value={f.refill} onChange={text("refill")} />
        <label>Refill amount <input value={f.refillAmount} inputMode="numeric" onInput={text("refillAmount")} /></label>
        <label>Refill day <input value={f.refillDay} inputMode="numeric" placeholder="monthly only (1-31)" onInput={text("refillDay")} /></label>
      </div>
      <label>Metadata (JSON) <textarea rows={3} value={f.meta} placeholder='{"plan": "pro"}' onInput={text("meta")} /></label>
      <RatelimitRows rows={f.ratelimits} onChange={(ratelimits) => setF({ ...f, ratelimits })} />
      <label class="check"><input type="checkbox" checked={f.enabled} onChange={flag("enabled")} /> Enabled</label>
      {props.creating && <label class="check"><input type="checkbox" checked={f.recoverable} onChange={flag("recoverable")} /> Recoverable (store the key encrypted so it can be shown again)</label>}
      <ErrorNote message={props.error} />
      <Guarded type="submit" need={props.need} busy={props.busy}>{props.submitLabel}</Guarded>
    </form>
  );
}
