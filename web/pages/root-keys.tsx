import { useState } from "preact/hooks";
import { PERMISSION_CATALOGUE, type ResourceType } from "../../src/domain/permissions.js";
import { api, can, session } from "../api.js";
import { ConfirmButton, ErrorNote, formatTime, Guarded, Loading, NeedNote, OneTimeSecret, Page, Pager, useAction, useAsync, useCursorPages } from "../ui.js";

const CREATE: [string, string] = ["rootkey", "create_root_key"];
const READ: [string, string] = ["rootkey", "read_root_key"];

const TYPES = Object.keys(PERMISSION_CATALOGUE) as ResourceType[];

/** Whether the session may grant `type.id.action`: a root key can never grant what it does not hold. */
function grantable(type: string, id: string, action: string): boolean {
  const held = new Set(session()?.permissions ?? []);
  return held.has(`${type}.*.${action}`) || held.has(`${type}.${id}.${action}`);
}

/** The permission picker: the catalogue's actions per resource type, with `*` or one resource id per type. */
function PermissionPicker({ selected, onChange }: { selected: Set<string>; onChange: (next: Set<string>) => void }) {
  const [ids, setIds] = useState<Record<string, string>>({});
  const toggle = (permission: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(permission);
    else next.delete(permission);
    onChange(next);
  };
  return (
    <div class="picker">
      {TYPES.map((type) => {
        const entry = PERMISSION_CATALOGUE[type];
        const id = (entry.specificIds && ids[type]?.trim()) || "*";
        return (
          <fieldset key={type}>
            <legend>{type}</legend>
            {entry.specificIds && (
              <label class="resource">
                Resource
                <input value={ids[type] ?? ""} placeholder="* (all)" onInput={(e) => setIds({ ...ids, [type]: (e.target as HTMLInputElement).value })} />
              </label>
            )}
            {entry.actions.map((action) => {
              const permission = `${type}.${id}.${action}`;
              const allowed = grantable(type, id, action);
              return (
                <label key={action} class="check" title={allowed ? permission : `Your root key cannot grant ${permission}`}>
                  <input type="checkbox" disabled={!allowed} checked={selected.has(permission)} onChange={(e) => toggle(permission, (e.target as HTMLInputElement).checked)} />
                  {action}
                </label>
              );
            })}
          </fieldset>
        );
      })}
    </div>
  );
}

function CreateRootKey({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [selected, setSelected] = useState(new Set<string>());
  const [secret, setSecret] = useState<string>();
  const { busy, error, run } = useAction();
  if (secret) return <OneTimeSecret label="New root key" value={secret} onDone={() => setSecret(undefined)} />;
  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await run(() => api.rootKeys.createRootKey({ name: name.trim() || undefined, permissions: [...selected] }));
    if (created) {
      setSecret(created.key);
      setName("");
      setSelected(new Set());
      onCreated();
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Create a root key">
      <h2>Create a root key</h2>
      <NeedNote need={CREATE} consequence="it cannot create root keys." />
      <fieldset class="plain" disabled={!can(...CREATE)}>
        <label>Name <input value={name} maxLength={255} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
        <PermissionPicker selected={selected} onChange={setSelected} />
        <p class="hint">{selected.size} permission{selected.size === 1 ? "" : "s"} selected{selected.size > 0 ? `: ${[...selected].join(", ")}` : ""}</p>
      </fieldset>
      <ErrorNote message={error} />
      <Guarded type="submit" need={CREATE} busy={busy || selected.size === 0}>Create root key</Guarded>
    </form>
  );
}

export function RootKeysPage() {
  const pages = useCursorPages();
  const readable = can(...READ);
  // Not asked without the permission: the page says why once, rather than also showing the API's refusal.
  const list = useAsync(async () => (readable ? api.rootKeys.listRootKeys({ limit: 20, cursor: pages.cursor }) : undefined), [pages.cursor, readable]);
  const revoke = useAction();
  const me = session()?.rootKeyId;
  return (
    <Page title="Root keys" intro="Root keys authenticate calls to the Keyward API. A root key can only grant permissions it holds itself.">
      <CreateRootKey onCreated={list.reload} />
      <h2>Live root keys</h2>
      <ErrorNote message={list.error ?? revoke.error} />
      <NeedNote need={READ} consequence="the list is not available." />
      {list.loading && <Loading what="Loading root keys" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th>Name</th><th>Start</th><th>Permissions</th><th>Created</th><th /></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={5}>No root keys.</td></tr>}
                {list.data.data.map((k) => (
                  <tr key={k.keyId}>
                    <td data-label="Name">{k.name ?? <em>unnamed</em>}{k.keyId === me && <span class="badge">this session</span>}<div class="muted mono">{k.keyId}</div></td>
                    <td data-label="Start" class="mono">{k.start}…</td>
                    <td data-label="Permissions"><details><summary>{k.permissions.length}</summary><ul class="perms">{k.permissions.map((p) => <li key={p} class="mono">{p}</li>)}</ul></details></td>
                    <td data-label="Created">{formatTime(k.createdAt)}</td>
                    <td class="actions">
                      <ConfirmButton need={["rootkey", "delete_root_key"]} label="Revoke" confirm="Revoke now" busy={revoke.busy}
                        onConfirm={() => revoke.run(() => api.rootKeys.deleteRootKey({ keyId: k.keyId })).then(list.reload)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} />
        </>
      )}
    </Page>
  );
}
