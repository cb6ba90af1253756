import { useState } from "preact/hooks";
import { api, can } from "../api.js";
import { ErrorNote, Guarded, OneTimeSecret, useAction, useAsync } from "../ui.js";
import { eventGroups, HOUR_MS, parseCreditLevels } from "../webhook-form.js";

const GROUPS = eventGroups();

/** The catalogue as checkboxes, one fieldset per group; the create form is disabled as a whole when not allowed. */
function EventPicker({ selected, onChange }: { selected: Set<string>; onChange: (next: Set<string>) => void }) {
  const toggle = (event: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(event);
    else next.delete(event);
    onChange(next);
  };
  return (
    <div class="picker" role="group" aria-label="Events">
      {GROUPS.map((group) => (
        <fieldset key={group.title}>
          <legend>{group.title}</legend>
          {group.events.map((event) => (
            <label key={event} class="check">
              <input type="checkbox" checked={selected.has(event)} onChange={(e) => toggle(event, (e.target as HTMLInputElement).checked)} />
              <span class="mono">{event}</span>
            </label>
          ))}
        </fieldset>
      ))}
    </div>
  );
}

/** Apis to filter on, when the root key may list them; otherwise an id can be typed. */
function ApiFilter({ value, onChange }: { value: string; onChange: (apiId: string) => void }) {
  const readable = can("api", "read_api");
  const apis = useAsync(async () => (readable ? api.apis.listApis({ limit: 100 }) : undefined), [readable]);
  const set = (e: Event) => onChange((e.target as HTMLInputElement | HTMLSelectElement).value);
  if (!apis.data) return <label>Only events of API <input value={value} placeholder="all APIs (or an API id)" maxLength={255} onInput={set} /></label>;
  return (
    <label>Only events of API
      <select value={value} onChange={set}>
        <option value="">All APIs</option>
        {apis.data.data.map((a) => <option key={a.id} value={a.id}>{a.name} ({a.id})</option>)}
      </select>
    </label>
  );
}

const EMPTY = { url: "", description: "", apiId: "", levels: "", expiringHours: "24" };

export function CreateWebhook({ onCreated }: { onCreated: () => void }) {
  const [form, setForm] = useState(EMPTY);
  const [events, setEvents] = useState(new Set<string>());
  const [created, setCreated] = useState<{ webhookId: string; secret: string }>();
  const [invalid, setInvalid] = useState<string>();
  const { busy, error, run } = useAction();
  const allowed = can("webhook", "create_webhook");
  const field = (name: keyof typeof EMPTY) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  if (created) {
    return (
      <section class="card" aria-label="Webhook created">
        <h2>Webhook created</h2>
        <OneTimeSecret label="Signing secret" value={created.secret} onDone={() => setCreated(undefined)} />
        <p class="hint">You will not see this secret again: receivers verify each message's <code>webhook-signature</code> with it. If it is lost, rotate it on the endpoint's page.</p>
        <p><a href={`#/webhooks/${encodeURIComponent(created.webhookId)}`}>Open {created.webhookId}</a></p>
      </section>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    const parsed = parseCreditLevels(events.has("key.credits.low") ? form.levels : "");
    if ("error" in parsed) return setInvalid(parsed.error);
    if (events.size === 0) return setInvalid("Pick at least one event.");
    setInvalid(undefined);
    const hours = Number(form.expiringHours);
    const done = await run(() => api.webhooks.createWebhook({
      url: form.url.trim(),
      events: [...events],
      apiId: form.apiId.trim() || undefined,
      description: form.description.trim() || undefined,
      thresholds: {
        credits: parsed.levels,
        expiringBeforeMs: events.has("key.expiring") && form.expiringHours.trim() ? BigInt(Math.round(hours * HOUR_MS)) : undefined,
      },
    }));
    if (done) {
      setCreated(done);
      setForm(EMPTY);
      setEvents(new Set());
      onCreated();
    }
  };
  // An empty form says nothing to a key that cannot use it: the reason and the disabled button are enough.
  if (!allowed) {
    return (
      <section class="card" aria-label="Create a webhook">
        <h2>Create a webhook</h2>
        <p class="hint">Your root key lacks webhook.*.create_webhook: no webhook can be created.</p>
        <Guarded need={["webhook", "create_webhook"]}>Create webhook</Guarded>
      </section>
    );
  }
  return (
    <form class="card" onSubmit={submit} aria-label="Create a webhook">
      <h2>Create a webhook</h2>
      <fieldset class="plain">
        <div class="fields">
          <label>Endpoint URL <input type="url" value={form.url} required maxLength={2048} placeholder="https://example.com/keyward" onInput={field("url")} /></label>
          <ApiFilter value={form.apiId} onChange={(apiId) => setForm({ ...form, apiId })} />
        </div>
        <label>Description <input value={form.description} maxLength={500} placeholder="optional" onInput={field("description")} /></label>
        <h3>Events</h3>
        <EventPicker selected={events} onChange={setEvents} />
        <p class="hint">{events.size} event{events.size === 1 ? "" : "s"} selected{events.size > 0 ? `: ${[...events].join(", ")}` : ""}. Every message is signed as a Standard Webhook; <code>webhook.test</code> messages are always sent.</p>
        <div class="fields">
          {events.has("key.credits.low") && (
            <label>Credit levels for key.credits.low
              <input value={form.levels} required placeholder="e.g. 100, 10%" onInput={field("levels")} />
            </label>
          )}
          {events.has("key.expiring") && (
            <label>Hours before expiry for key.expiring
              <input type="number" min={1} max={2160} value={form.expiringHours} onInput={field("expiringHours")} />
            </label>
          )}
        </div>
        {events.has("key.credits.low") && <p class="hint">Credit levels: up to 10, each a number of remaining credits or a percentage (1–99 %) of the key's refill amount (without a refill: of the credits it was last given). Each fires once per crossing; a refill or credit update re-arms it.</p>}
      </fieldset>
      <ErrorNote message={invalid ?? error} />
      <Guarded type="submit" need={["webhook", "create_webhook"]} busy={busy}>Create webhook</Guarded>
    </form>
  );
}
