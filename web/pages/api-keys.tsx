import { useState } from "preact/hooks";
import { api } from "../api.js";
import { navigate } from "../router.js";
import { ConfirmButton, ErrorNote, formatTime, Guarded, lastUsedText, Loading, OneTimeSecret, Page, Pager, SearchBox, useAction, useAsync, useCursorPages } from "../ui.js";
import { EMPTY_KEY, KeyForm, keyRequestOf, type KeyFields } from "./key-form.js";

function CreateKey({ apiId, onCreated }: { apiId: string; onCreated: () => void }) {
  const [secret, setSecret] = useState<string>();
  const [invalid, setInvalid] = useState<string>();
  const [times, setTimes] = useState(0);
  const action = useAction();
  if (secret) return <OneTimeSecret label="New key" value={secret} onDone={() => setSecret(undefined)} />;
  const submit = async (fields: KeyFields) => {
    const { error, request } = keyRequestOf(fields);
    setInvalid(error);
    if (!request) return;
    const created = await action.run(() => api.keys.createKey({
      apiId, ...request, prefix: fields.prefix.trim() || undefined, recoverable: fields.recoverable || undefined,
    }));
    if (created) {
      setSecret(created.key);
      setTimes(times + 1); // a fresh, empty form next time
      onCreated();
    }
  };
  return (
    <KeyForm key={times} label="Create a key" initial={EMPTY_KEY} creating need={["api", "create_key"]} busy={action.busy}
      error={invalid ?? action.error} submitLabel="Create key" onSubmit={submit} />
  );
}

export function ApiKeysPage({ apiId }: { apiId: string }) {
  const info = useAsync(() => api.apis.getApi({ apiId }), [apiId]);
  const [search, setSearch] = useState<string>();
  const pages = useCursorPages();
  // The server searches every page (name, id, start, the identity's external id); the pager pages the matches.
  const keys = useAsync(() => api.apis.listKeys({ apiId, limit: 20, cursor: pages.cursor, search }), [apiId, pages.cursor, search]);
  const change = useAction();
  const shown = keys.data?.data ?? [];
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
      <h2>Keys{keys.data ? ` (${keys.data.total}${search === undefined ? "" : " found"})` : ""}</h2>
      <SearchBox label="Search keys" placeholder="name, id, start or external id" need={["api", "read_key"]}
        onSearch={(text) => { pages.first(); setSearch(text); keys.reload(); }} />
      <ErrorNote message={keys.error ?? change.error} />
      {keys.loading && <Loading what="Loading keys" />}
      {keys.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th>Key</th><th>Status</th><th>Credits</th><th>Created</th><th>Last used</th><th>Actions</th></tr></thead>
              <tbody>
                {shown.length === 0 && <tr><td colSpan={6}>{search === undefined ? "No keys yet." : `No key matches “${search}”.`}</td></tr>}
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
