import { useEffect, useRef, useState } from "preact/hooks";
import { api, can, session } from "../api.js";
import { RangePicker, UsageChart } from "../chart.js";
import { durationText, parseDuration } from "../duration.js";
import { ConfirmButton, ErrorNote, formatTime, Guarded, Loading, NeedNote, Page, Pager, SearchBox, useAction, useAsync, useCursorPages } from "../ui.js";
import { fillBuckets, rangeBounds, RATELIMIT_OUTCOMES, type Granularity, type RangeId } from "../usage.js";

const READ_ANALYTICS: [string, string] = ["ratelimit", "read_analytics"];

/** The namespace's id: given, typed as one, or found by its exact name among those the root key may list. */
async function namespaceIdOf(namespace: string, known?: string): Promise<string | undefined> {
  if (known) return known;
  if (namespace.startsWith("rlns_")) return namespace;
  if (!can("ratelimit", "read_namespace")) return undefined;
  const found = await api.ratelimits.listNamespaces({ search: namespace, limit: 100 });
  return found.data.find((n) => n.name === namespace)?.id;
}

/** Checks of one namespace over time, passed against blocked (analytics.getRatelimits). */
function NamespaceUsage({ namespace, namespaceId }: { namespace: string; namespaceId?: string }) {
  const [range, setRange] = useState<{ id: RangeId; granularity: Granularity }>({ id: "24h", granularity: "hour" });
  const [refreshed, setRefreshed] = useState(0);
  const allowed = can(...READ_ANALYTICS);
  const usage = useAsync(async () => {
    if (!allowed) return undefined;
    const id = await namespaceIdOf(namespace, namespaceId);
    if (!id) return { points: undefined };
    const { start, end } = rangeBounds(range.id, range.granularity, Date.now());
    const answer = await api.analytics.getRatelimits({ start: BigInt(start), end: BigInt(end), granularity: range.granularity, namespaceIds: [id] });
    return { points: fillBuckets(answer.data, range.granularity, start, end, RATELIMIT_OUTCOMES) };
  }, [namespace, namespaceId, range.id, range.granularity, refreshed, allowed]);
  return (
    <div class="card">
      <h2>Checks over time</h2>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); setRefreshed((n) => n + 1); }} aria-label="Checks range">
        <RangePicker range={range.id} granularity={range.granularity} onChange={(id, granularity) => setRange({ id, granularity })} />
        <div class="submit"><Guarded type="submit" need={READ_ANALYTICS} busy={usage.loading}>Refresh</Guarded></div>
      </form>
      {!allowed ? <p class="muted" role="note">Your root key lacks ratelimit.*.read_analytics: the chart is not available.</p> : (
        <>
          <ErrorNote message={usage.error} />
          {usage.loading && <Loading what="Loading the namespace's checks" />}
          {usage.data && !usage.data.points && <p class="muted">No namespace is named “{namespace}” (or your root key may not list it): no checks to show.</p>}
          {usage.data?.points && (
            <UsageChart points={usage.data.points} granularity={range.granularity} title="Checks of this namespace" outcomes={RATELIMIT_OUTCOMES} noun="check" />
          )}
        </>
      )}
    </div>
  );
}

function Overrides({ namespace }: { namespace: string }) {
  const pages = useCursorPages();
  const list = useAsync(() => api.ratelimits.listOverrides({ namespace, limit: 20, cursor: pages.cursor }), [namespace, pages.cursor]);
  const [form, setForm] = useState({ identifier: "", limit: "", duration: "60 s" });
  const [invalid, setInvalid] = useState<string>();
  const change = useAction();
  const field = (name: keyof typeof form) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  const set = async (e: Event) => {
    e.preventDefault();
    const window = parseDuration(form.duration);
    const limit = form.limit.trim();
    const problem = "error" in window ? window.error : /^\d{1,15}$/.test(limit) ? undefined : `The limit must be a whole number of requests (0 or more), not “${limit}”.`;
    setInvalid(problem);
    if (problem || "error" in window) return;
    const done = await change.run(() =>
      api.ratelimits.setOverride({ namespace, identifier: form.identifier.trim(), limit: BigInt(limit), duration: BigInt(window.ms) }),
    );
    if (done) {
      setForm({ ...form, identifier: "", limit: "" });
      list.reload();
    }
  };
  if (list.error && !list.data) return <ErrorNote message={`${list.error} Namespaces are created by their first limit call.`} />;
  return (
    <>
      <form class="card" onSubmit={set} aria-label="Set an override">
        <h2>Set an override</h2>
        <NeedNote need={["ratelimit", "set_override"]} consequence="it cannot set overrides." />
        <fieldset class="plain fields" disabled={!can("ratelimit", "set_override")}>
          <label>Identifier <input value={form.identifier} required placeholder="user_1 or user_*" onInput={field("identifier")} /></label>
          <label>Limit <input value={form.limit} required inputMode="numeric" onInput={field("limit")} /></label>
          <label>Window <input value={form.duration} required placeholder="60 s, 5 min, 1 h" onInput={field("duration")} /></label>
        </fieldset>
        <ErrorNote message={invalid} />
        <Guarded type="submit" need={["ratelimit", "set_override"]} busy={change.busy}>Set override</Guarded>
      </form>
      <ErrorNote message={list.error ?? change.error} />
      {list.loading && <Loading what="Loading overrides" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th>Identifier</th><th>Limit</th><th>Window</th><th /></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={4}>No overrides.</td></tr>}
                {list.data.data.map((o) => (
                  <tr key={o.overrideId}>
                    <td data-label="Identifier" class="mono">{o.identifier}</td><td data-label="Limit">{String(o.limit)}</td><td data-label="Window">{durationText(o.duration)}</td>
                    <td class="actions"><ConfirmButton need={["ratelimit", "delete_override"]} label="Delete" confirm="Delete override" busy={change.busy}
                      onConfirm={() => change.run(() => api.ratelimits.deleteOverride({ namespace, identifier: o.identifier })).then(list.reload)} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} label="Override pages" />
        </>
      )}
    </>
  );
}

/** The workspace's namespaces (those the root key may read), searched by name, 20 a page; a click opens one. */
function NamespaceList({ opened, onOpen }: { opened?: string; onOpen: (name: string, id: string) => void }) {
  const [search, setSearch] = useState<string>();
  const pages = useCursorPages();
  const allowed = can("ratelimit", "read_namespace");
  const list = useAsync(
    async () => (allowed ? api.ratelimits.listNamespaces({ limit: 20, cursor: pages.cursor, search }) : undefined),
    [pages.cursor, search, allowed],
  );
  const some = allowed && !session()?.permissions.includes("ratelimit.*.read_namespace");
  return (
    <>
      <h2>Namespaces</h2>
      <SearchBox label="Search namespaces" placeholder="part of a name" need={["ratelimit", "read_namespace"]}
        onSearch={(text) => { pages.first(); setSearch(text); list.reload(); }} />
      {!allowed && <p class="hint">Your root key lacks ratelimit.*.read_namespace: the list is not available.</p>}
      {some && <p class="hint">Your root key may read only some namespaces: the list shows those.</p>}
      <ErrorNote message={list.error} />
      {list.loading && <Loading what="Loading namespaces" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th>Name</th><th>Id</th><th>Created</th></tr></thead>
              <tbody>
                {list.data.data.length === 0 && (
                  <tr><td colSpan={3}>{search === undefined ? "No namespaces yet: a limit call creates one." : `No namespace name contains “${search}”.`}</td></tr>
                )}
                {list.data.data.map((n) => (
                  <tr key={n.id} aria-current={n.name === opened ? "true" : undefined}>
                    <td data-label="Name" class="name">
                      <Guarded class="link" need={["ratelimit", "read_override"]} onClick={() => onOpen(n.name, n.id)}>{n.name}</Guarded>
                      {n.name === opened && <span class="badge">open</span>}
                    </td>
                    <td data-label="Id" class="mono">{n.id}</td>
                    <td data-label="Created">{formatTime(n.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} label="Namespace pages" />
        </>
      )}
    </>
  );
}

export function RatelimitsPage() {
  const [typed, setTyped] = useState("");
  // Opening the same name again reloads it (a new key remounts the overrides).
  const [opened, setOpened] = useState<{ namespace: string; id?: string; times: number }>();
  const open = (namespace: string, id?: string) => setOpened({ namespace, id, times: (opened?.times ?? 0) + 1 });
  return (
    <Page title="Rate limits" intro="Standalone rate-limit namespaces are created on first use. Pick one from the list, or open one by name or id, to see its checks and manage its overrides.">
      <form class="card inline" onSubmit={(e) => { e.preventDefault(); if (typed.trim()) open(typed.trim()); else setOpened(undefined); }} aria-label="Open a namespace">
        <label>Namespace <input value={typed} required maxLength={512} placeholder="e.g. email.outbound" onInput={(e) => setTyped((e.target as HTMLInputElement).value)} /></label>
        <Guarded type="submit" need={["ratelimit", "read_override"]}>Open namespace</Guarded>
      </form>
      {opened && <OpenedNamespace key={`${opened.times}`} namespace={opened.namespace} namespaceId={opened.id} />}
      <NamespaceList opened={opened?.namespace} onOpen={open} />
    </Page>
  );
}

/** The opened namespace's checks and overrides, brought into view (and focus) when it opens. */
function OpenedNamespace({ namespace, namespaceId }: { namespace: string; namespaceId?: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: "start" });
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section aria-labelledby="opened-namespace">
      <h2 id="opened-namespace" ref={heading} tabIndex={-1} class="name">Namespace “{namespace}”</h2>
      <NamespaceUsage namespace={namespace} namespaceId={namespaceId} />
      <h3>Overrides</h3>
      <Overrides namespace={namespace} />
    </section>
  );
}
