import { useState } from "preact/hooks";
import { api, can } from "../api.js";
import { replaceRouteQuery, routeQuery } from "../router.js";
import { ErrorNote, formatTime, Guarded, Loading, NeedNote, Page, Pager, useAsync, useCursorPages } from "../ui.js";
import { parseUtc } from "../utc-time.js";

const NEED: [string, string] = ["workspace", "read_audit_log"];
const PAGE_SIZES = ["10", "25", "50", "100"];
const ORDERS = { newest_first: "newest first", oldest_first: "oldest first" } as const;

interface Filters {
  from: string;
  to: string;
  actor: string;
  action: string;
  resourceType: string;
  resourceId: string;
  perPage: string;
  order: keyof typeof ORDERS;
}

const EMPTY: Filters = { from: "", to: "", actor: "", action: "", resourceType: "", resourceId: "", perPage: "25", order: "newest_first" };

/** The filters the address holds (`#/audit-log?actor=…&from=…`), so a view can be reloaded and shared. */
function filtersFromUrl(): Filters {
  const query = routeQuery();
  const read = (name: keyof Filters) => query.get(name) ?? EMPTY[name];
  const perPage = read("perPage");
  const order = read("order");
  return {
    from: read("from"), to: read("to"), actor: read("actor"), action: read("action"), resourceType: read("resourceType"),
    resourceId: read("resourceId"),
    perPage: PAGE_SIZES.includes(perPage) ? perPage : EMPTY.perPage,
    order: order in ORDERS ? (order as Filters["order"]) : EMPTY.order,
  };
}

/** The request of the form's filters (empty fields left out; actions comma-separated), or what is wrong with them. */
function toRequest(f: Filters) {
  const from = parseUtc(f.from);
  const to = parseUtc(f.to);
  const error = from.error ? `From: ${from.error}` : to.error ? `Until: ${to.error}` : undefined;
  return {
    error,
    request: {
      start: from.ms === undefined ? undefined : BigInt(from.ms),
      end: to.ms === undefined ? undefined : BigInt(to.ms),
      actor: f.actor.trim() || undefined,
      actions: f.action.split(",").map((a) => a.trim()).filter(Boolean),
      resourceType: f.resourceType.trim() || undefined,
      resourceId: f.resourceId.trim() || undefined,
      order: f.order,
      limit: Number(f.perPage),
    },
  };
}

/**
 * Names of the workspace's live root keys by id, for the actor column; empty when the session may not list root keys
 * (the ids are shown then). A workspace holds few root keys: a few pages of 100 at most.
 */
function useRootKeyNames() {
  const allowed = can("rootkey", "read_root_key");
  return useAsync(async () => {
    const names = new Map<string, string>();
    if (!allowed) return names;
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await api.rootKeys.listRootKeys({ limit: 100, cursor });
      for (const key of answer.data) if (key.name) names.set(key.keyId, key.name);
      cursor = answer.pagination?.cursor;
      if (!answer.pagination?.hasMore || !cursor) break;
    }
    return names;
  }, [allowed]);
}

function Actor({ id, names }: { id: string; names?: Map<string, string> }) {
  if (id === "cli") return <span>operator CLI</span>;
  const name = names?.get(id);
  return name ? <span>{name}<div class="muted mono">{id}</div></span> : <span class="mono">{id}</span>;
}

function AuditTable({ filters }: { filters: Filters }) {
  const pages = useCursorPages();
  const names = useRootKeyNames();
  const { request } = toRequest(filters);
  const list = useAsync(() => api.auditLogs.listAuditLogs({ ...request, cursor: pages.cursor }), [pages.cursor]);
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
                    <td data-label="Actor"><Actor id={log.actor} names={names.data} /></td>
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
  const [form, setForm] = useState<Filters>(filtersFromUrl);
  const [invalid, setInvalid] = useState<string>();
  // Applying the filters remounts the table, which starts again at its first page.
  const [applied, setApplied] = useState<{ filters: Filters; times: number }>(() => ({ filters: form, times: 0 }));
  const field = (name: keyof Filters) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  const allowed = can(...NEED);
  const apply = (filters: Filters) => {
    const { error } = toRequest(filters);
    setInvalid(error);
    if (error) return;
    const { perPage, order, ...rest } = filters;
    replaceRouteQuery({ ...rest, perPage: perPage === EMPTY.perPage ? undefined : perPage, order: order === EMPTY.order ? undefined : order });
    setApplied({ filters, times: applied.times + 1 });
  };
  return (
    <Page title="Audit log" intro="Every change made through the API, the dashboard or the CLI, with who made it. Times are UTC, 24-hour.">
      <form class="card" aria-label="Audit log filters" onSubmit={(e) => { e.preventDefault(); apply(form); }}>
        <fieldset class="plain fields" disabled={!allowed}>
          <label>From (UTC) <input value={form.from} placeholder="YYYY-MM-DD HH:MM" maxLength={30} onInput={field("from")} /></label>
          <label>Until (UTC) <input value={form.to} placeholder="YYYY-MM-DD HH:MM" maxLength={30} onInput={field("to")} /></label>
          <label>Actor <input value={form.actor} maxLength={255} placeholder="root-key id or cli" onInput={field("actor")} /></label>
          <label>Actions <input value={form.action} maxLength={1000} placeholder="e.g. key.create, key.delete" onInput={field("action")} /></label>
          <label>Resource type <input value={form.resourceType} maxLength={64} placeholder="key, api, rootKey…" onInput={field("resourceType")} /></label>
          <label>Resource id <input value={form.resourceId} maxLength={255} placeholder="e.g. key_…" onInput={field("resourceId")} /></label>
          <label>Order
            <select value={form.order} onChange={field("order")}>{Object.entries(ORDERS).map(([value, label]) => <option key={value} value={value}>{label}</option>)}</select>
          </label>
          <label>Per page
            <select value={form.perPage} onChange={field("perPage")}>{PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}</select>
          </label>
        </fieldset>
        <p class="hint">Until is exclusive; a date alone means its midnight (00:00 UTC).</p>
        <ErrorNote message={invalid} />
        <div class="actions">
          <Guarded type="submit" need={NEED}>Apply filters</Guarded>
          <button type="button" disabled={!allowed} onClick={() => { setForm(EMPTY); apply(EMPTY); }}>Clear</button>
        </div>
      </form>
      <NeedNote need={NEED} consequence="there is nothing to show here." />
      {allowed && <AuditTable key={applied.times} filters={applied.filters} />}
    </Page>
  );
}
