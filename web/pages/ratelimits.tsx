import { useEffect, useRef, useState } from "preact/hooks";
import { api, can, session } from "../api.js";
import { ConfirmButton, ErrorNote, formatTime, Guarded, Loading, Page, Pager, SearchBox, useAction, useAsync, useCursorPages } from "../ui.js";

function Overrides({ namespace }: { namespace: string }) {
  const pages = useCursorPages();
  const list = useAsync(() => api.ratelimits.listOverrides({ namespace, limit: 20, cursor: pages.cursor }), [namespace, pages.cursor]);
  const [form, setForm] = useState({ identifier: "", limit: "", duration: "60000" });
  const change = useAction();
  const field = (name: keyof typeof form) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  const set = async (e: Event) => {
    e.preventDefault();
    const done = await change.run(() =>
      api.ratelimits.setOverride({ namespace, identifier: form.identifier.trim(), limit: BigInt(form.limit || "0"), duration: BigInt(form.duration || "0") }),
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
        <div class="fields">
          <label>Identifier <input value={form.identifier} required placeholder="user_1 or user_*" onInput={field("identifier")} /></label>
          <label>Limit <input value={form.limit} required inputMode="numeric" pattern="[0-9]+" onInput={field("limit")} /></label>
          <label>Window (ms) <input value={form.duration} required inputMode="numeric" pattern="[0-9]+" onInput={field("duration")} /></label>
        </div>
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
                    <td data-label="Identifier" class="mono">{o.identifier}</td><td data-label="Limit">{String(o.limit)}</td><td data-label="Window">{String(o.duration)} ms</td>
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
function NamespaceList({ opened, onOpen }: { opened?: string; onOpen: (name: string) => void }) {
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
                      <Guarded class="link" need={["ratelimit", "read_override"]} onClick={() => onOpen(n.name)}>{n.name}</Guarded>
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
  const [opened, setOpened] = useState<{ namespace: string; times: number }>();
  const open = (namespace: string) => setOpened({ namespace, times: (opened?.times ?? 0) + 1 });
  return (
    <Page title="Rate limits" intro="Standalone rate-limit namespaces are created on first use. Pick one from the list, or open one by name or id, to manage its overrides.">
      <form class="card inline" onSubmit={(e) => { e.preventDefault(); if (typed.trim()) open(typed.trim()); else setOpened(undefined); }} aria-label="Open a namespace">
        <label>Namespace <input value={typed} required maxLength={512} placeholder="e.g. email.outbound" onInput={(e) => setTyped((e.target as HTMLInputElement).value)} /></label>
        <Guarded type="submit" need={["ratelimit", "read_override"]}>Open namespace</Guarded>
      </form>
      {opened && <OpenedNamespace key={`${opened.times}`} namespace={opened.namespace} />}
      <NamespaceList opened={opened?.namespace} onOpen={open} />
    </Page>
  );
}

/** The overrides of the opened namespace, brought into view (and focus) when it opens. */
function OpenedNamespace({ namespace }: { namespace: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: "start" });
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section aria-labelledby="opened-namespace">
      <h2 id="opened-namespace" ref={heading} tabIndex={-1} class="name">Overrides of “{namespace}”</h2>
      <Overrides namespace={namespace} />
    </section>
  );
}
