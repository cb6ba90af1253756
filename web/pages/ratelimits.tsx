import { useState } from "preact/hooks";
import { api } from "../api.js";
import { ConfirmButton, ErrorNote, Guarded, Loading, Page, Pager, useAction, useAsync, useCursorPages } from "../ui.js";

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
        <h2>Set an override in “{namespace}”</h2>
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
          <Pager page={pages.page} hasMore={list.data.pagination?.hasMore ?? false} onFirst={pages.first} onNext={() => pages.next(list.data?.pagination?.cursor)} />
        </>
      )}
    </>
  );
}

export function RatelimitsPage() {
  const [typed, setTyped] = useState("");
  // Opening the same name again reloads it (a new key remounts the overrides).
  const [opened, setOpened] = useState<{ namespace: string; times: number }>();
  return (
    <Page title="Rate limits" intro="Standalone rate-limit namespaces are created on first use. Open one by name or id to manage its overrides.">
      <form class="card inline" onSubmit={(e) => { e.preventDefault(); setOpened(typed.trim() ? { namespace: typed.trim(), times: (opened?.times ?? 0) + 1 } : undefined); }} aria-label="Open a namespace">
        <label>Namespace <input value={typed} required maxLength={512} placeholder="e.g. email.outbound" onInput={(e) => setTyped((e.target as HTMLInputElement).value)} /></label>
        <Guarded type="submit" need={["ratelimit", "read_override"]}>Open namespace</Guarded>
      </form>
      {opened && <Overrides key={`${opened.times}`} namespace={opened.namespace} />}
    </Page>
  );
}
