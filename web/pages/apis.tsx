import { useState } from "preact/hooks";
import { api } from "../api.js";
import { navigate } from "../router.js";
import { ErrorNote, Guarded, Page, useAction } from "../ui.js";

// Keyward's API has no "list apis" operation yet; the dashboard can only do what the API can, so apis are
// opened by id. Those opened or created in this tab are remembered in memory (not in browser storage).
const recent: { id: string; name: string }[] = [];

/** Remembers an api for the "Opened in this tab" list. */
export function rememberApi(id: string, name: string): void {
  const at = recent.findIndex((r) => r.id === id);
  if (at >= 0) recent.splice(at, 1);
  recent.unshift({ id, name });
}

export function ApisPage() {
  const [name, setName] = useState("");
  const [openId, setOpenId] = useState("");
  const create = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await create.run(() => api.apis.createApi({ name: name.trim() }));
    if (created) {
      rememberApi(created.apiId, name.trim());
      navigate(`/apis/${created.apiId}`);
    }
  };
  return (
    <Page title="APIs" intro="An api groups keys. Open one to list, search and manage its keys.">
      <div class="grid2">
        <form class="card" onSubmit={(e) => { e.preventDefault(); if (openId.trim()) navigate(`/apis/${openId.trim()}`); }} aria-label="Open an api">
          <h2>Open an api</h2>
          <label>Api id <input value={openId} placeholder="api_…" required onInput={(e) => setOpenId((e.target as HTMLInputElement).value)} /></label>
          <Guarded type="submit" need={["api", "read_api"]}>Open</Guarded>
        </form>
        <form class="card" onSubmit={submit} aria-label="Create an api">
          <h2>Create an api</h2>
          <label>Name <input value={name} required minLength={3} maxLength={256} placeholder="my-api"
            onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
          <p class="hint">3–256 characters.</p>
          <ErrorNote message={create.error} />
          <Guarded type="submit" need={["api", "create_api"]} busy={create.busy}>Create api</Guarded>
        </form>
      </div>
      <h2>Opened in this tab</h2>
      {recent.length === 0 ? <p class="muted">None yet. (Listing all apis needs an API operation Keyward does not have yet.)</p> : (
        <ul class="links">{recent.map((r) => <li key={r.id}><a href={`#/apis/${r.id}`}>{r.name}</a> <span class="muted mono">{r.id}</span></li>)}</ul>
      )}
    </Page>
  );
}
