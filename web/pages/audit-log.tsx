import { useState } from "preact/hooks";
import { api, can } from "../api.js";
import { ErrorNote, formatTime, Guarded, Loading, Page, Pager, useAsync, useCursorPages } from "../ui.js";

const NEED: [string, string] = ["workspace", "read_audit_log"];
const PAGE_SIZES = ["10", "25", "50", "100"];

interface Filters {
  from: string;
  to: string;
  actor: string;
  action: string;
  resourceType: string;
  resourceId: string;
  perPage: string;
}

const EMPTY: Filters = { from: "", to: "", actor: "", action: "", resourceType: "", resourceId: "", perPage: "25" };

/** A `datetime-local` value read as UTC (the page shows every time in UTC), or undefined when empty or invalid. */
function utcMillis(value: string): bigint | undefined {
  const ms = value ? Date.parse(`${value}Z`) : NaN;
  return Number.isFinite(ms) ? BigInt(ms) : undefined;
}

/** The request filters of the form: empty fields are left out; actions are comma-separated. */
function toRequest(f: Filters) {
  const actions = f.action.split(",").map((a) => a.trim()).filter(Boolean);
  return {
    start: utcMillis(f.from),
    end: utcMillis(f.to),
    actor: f.actor.trim() || undefined,
    actions,
    resourceType: f.resourceType.trim() || undefined,
    resourceId: f.resourceId.trim() || undefined,
  };
}

function AuditTable({ filters }: { filters: Filters }) {
  const pages = useCursorPages();
  const list = useAsync(() => api.auditLogs.listAuditLogs({ ...toRequest(filters), limit: Number(filters.perPage), cursor: pages.cursor }), [pages.cursor]);
  return (
    <>
      <ErrorNote message={list.error} />
      {list.loading && <Loading what="Loading the audit log" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table aria-label="Audit records">
              <thead><tr><th>Time</th><th>Actor</th><th>Action</th><th>Resources</th><th>Request</th></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={5}>No audit records match.</td></tr>}
                {list.data.data.map((log) => (
                  <tr key={log.id}>
                    <td data-label="Time">{formatTime(log.time)}</td>
                    <td data-label="Actor" class="mono">{log.actor}</td>
                    <td data-label="Action"><code>{log.action}</code></td>
                    <td data-label="Resources">
                      <ul class="resources">{log.resources.map((r) => <li key={`${r.type}:${r.id}`}><span class="muted">{r.type}</span> <span class="mono">{r.id}</span></li>)}</ul>
                    </td>
                    <td data-label="Request" class="hint">
                      {log.requestId && <span class="mono">{log.requestId}</span>}
                      {log.remoteAddress && <div>from {log.remoteAddress}</div>}
                      {log.userAgent && <div title={log.userAgent}>{log.userAgent.length > 60 ? `${log.userAgent.slice(0, 60)}…` : log.userAgent}</div>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} />
        </>
      )}
    </>
  );
}

export function AuditLogPage() {
  const [form, setForm] = useState<Filters>(EMPTY);
  // Applying the filters remounts the table, which starts again at its first page.
  const [applied, setApplied] = useState<{ filters: Filters; times: number }>({ filters: EMPTY, times: 0 });
  const field = (name: keyof Filters) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  const allowed = can(...NEED);
  return (
    <Page title="Audit log" intro="Every change made through the API or the CLI, oldest first, with who made it. Times are UTC.">
      <form class="card" aria-label="Audit log filters" onSubmit={(e) => { e.preventDefault(); setApplied({ filters: form, times: applied.times + 1 }); }}>
        <div class="fields">
          <label>From (UTC) <input type="datetime-local" step={1} value={form.from} onInput={field("from")} /></label>
          <label>Until (UTC) <input type="datetime-local" step={1} value={form.to} onInput={field("to")} /></label>
          <label>Actor <input value={form.actor} maxLength={255} placeholder="root-key id or cli" onInput={field("actor")} /></label>
          <label>Actions <input value={form.action} maxLength={1000} placeholder="e.g. key.create, key.delete" onInput={field("action")} /></label>
          <label>Resource type <input value={form.resourceType} maxLength={64} placeholder="key, api, rootKey…" onInput={field("resourceType")} /></label>
          <label>Resource id <input value={form.resourceId} maxLength={255} placeholder="e.g. key_…" onInput={field("resourceId")} /></label>
          <label>Per page
            <select value={form.perPage} onChange={field("perPage")}>{PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}</select>
          </label>
        </div>
        <div class="actions">
          <Guarded type="submit" need={NEED}>Apply filters</Guarded>
          <button type="button" onClick={() => { setForm(EMPTY); setApplied({ filters: EMPTY, times: applied.times + 1 }); }}>Clear</button>
        </div>
      </form>
      {allowed
        ? <AuditTable key={applied.times} filters={applied.filters} />
        : <p class="muted" role="note">Your root key lacks workspace.*.read_audit_log, so there is nothing to show here.</p>}
    </Page>
  );
}
