import { useState } from "preact/hooks";
import { api } from "../api.js";
import { navigate } from "../router.js";
import { ConfirmButton, ErrorNote, formatTime, Guarded, lastUsedText, Loading, OneTimeSecret, Page, Pager, useAction, useAsync, useCursorPages } from "../ui.js";

function CreateKey({ apiId, onCreated }: { apiId: string; onCreated: () => void }) {
  const [form, setForm] = useState({ name: "", prefix: "", externalId: "", credits: "" });
  const [secret, setSecret] = useState<string>();
  const action = useAction();
  if (secret) return <OneTimeSecret label="New key" value={secret} onDone={() => setSecret(undefined)} />;
  const field = (name: keyof typeof form) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    const credits = form.credits.trim();
    const created = await action.run(() =>
      api.keys.createKey({
        apiId,
        name: form.name.trim() || undefined,
        prefix: form.prefix.trim() || undefined,
        externalId: form.externalId.trim() || undefined,
        credits: credits === "" ? undefined : { remaining: BigInt(credits) },
      }),
    );
    if (created) {
      setSecret(created.key);
      setForm({ name: "", prefix: "", externalId: "", credits: "" });
      onCreated();
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Create a key">
      <h2>Create a key</h2>
      <div class="fields">
        <label>Name <input value={form.name} maxLength={255} onInput={field("name")} /></label>
        <label>Prefix <input value={form.prefix} maxLength={16} pattern="[a-zA-Z0-9_]*" onInput={field("prefix")} /></label>
        <label>External id <input value={form.externalId} maxLength={255} onInput={field("externalId")} /></label>
        <label>Credits <input value={form.credits} inputMode="numeric" pattern="[0-9]*" placeholder="unlimited" onInput={field("credits")} /></label>
      </div>
      <ErrorNote message={action.error} />
      <Guarded type="submit" need={["api", "create_key"]} busy={action.busy}>Create key</Guarded>
    </form>
  );
}

export function ApiKeysPage({ apiId }: { apiId: string }) {
  const info = useAsync(() => api.apis.getApi({ apiId }), [apiId]);
  const [filter, setFilter] = useState("");
  const [externalId, setExternalId] = useState<string>();
  const pages = useCursorPages();
  const keys = useAsync(() => api.apis.listKeys({ apiId, limit: 20, cursor: pages.cursor, externalId }), [apiId, pages.cursor, externalId]);
  const change = useAction();
  const needle = filter.trim().toLowerCase();
  const shown = (keys.data?.data ?? []).filter((k) => !needle || [k.keyId, k.name ?? "", k.start].some((s) => s.toLowerCase().includes(needle)));
  const toggle = (keyId: string, enabled: boolean) => change.run(() => api.keys.updateKey({ keyId, enabled })).then(keys.reload);
  const remove = async (keyId: string) => {
    await change.run(() => api.keys.deleteKey({ keyId }));
    keys.reload();
  };
  return (
    <Page title={info.data ? `API ${info.data.name}` : "API"} intro={
      <><span class="mono">{apiId}</span> · <a href={`#/apis/${encodeURIComponent(apiId)}/settings`}>Settings</a></>
    }>
      <ErrorNote message={info.error} />
      <CreateKey apiId={apiId} onCreated={keys.reload} />
      <h2>Keys{keys.data ? ` (${keys.data.total})` : ""}</h2>
      <form class="filters" role="search" onSubmit={(e) => { e.preventDefault(); pages.first(); }}>
        <label>Search this page <input type="search" value={filter} placeholder="name, id or start" onInput={(e) => setFilter((e.target as HTMLInputElement).value)} /></label>
        <label>External id
          <input type="search" placeholder="all" onChange={(e) => { const v = (e.target as HTMLInputElement).value.trim(); pages.first(); setExternalId(v || undefined); }} />
        </label>
      </form>
      <ErrorNote message={keys.error ?? change.error} />
      {keys.loading && <Loading what="Loading keys" />}
      {keys.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th>Key</th><th>Status</th><th>Credits</th><th>Created</th><th>Last used</th><th>Actions</th></tr></thead>
              <tbody>
                {shown.length === 0 && <tr><td colSpan={6}>No keys{needle ? " match" : ""}.</td></tr>}
                {shown.map((k) => (
                  <tr key={k.keyId}>
                    <td data-label="Key"><a href={`#/keys/${k.keyId}`}>{k.name ?? k.keyId}</a><div class="muted mono">{k.start}… · {k.keyId}</div></td>
                    <td data-label="Status"><span class={k.enabled ? "badge ok" : "badge off"}>{k.enabled ? "enabled" : "disabled"}</span></td>
                    <td data-label="Credits">{k.credits?.remaining === undefined ? "unlimited" : String(k.credits.remaining)}</td>
                    <td data-label="Created">{formatTime(k.createdAt)}</td>
                    <td data-label="Last used">{lastUsedText(k.lastUsedAt)}</td>
                    <td class="actions">
                      <Guarded need={["api", "update_key"]} busy={change.busy} onClick={() => toggle(k.keyId, !k.enabled)}>{k.enabled ? "Disable" : "Enable"}</Guarded>
                      <ConfirmButton need={["api", "delete_key"]} label="Delete" confirm="Delete key" busy={change.busy} onConfirm={() => remove(k.keyId)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={keys.data.pagination} />
        </>
      )}
      <p><a href="#/apis">← All APIs</a></p>
    </Page>
  );
}
