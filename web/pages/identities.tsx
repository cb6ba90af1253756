import { useState } from "preact/hooks";
import { api, can } from "../api.js";
import { rateText } from "../duration.js";
import { creditsText } from "./identity.js";
import { ConfirmButton, ErrorNote, Guarded, Loading, NeedNote, Page, Pager, useAction, useAsync, useCursorPages } from "../ui.js";

export function IdentitiesPage() {
  const [search, setSearch] = useState<string>();
  const [externalId, setExternalId] = useState("");
  const pages = useCursorPages();
  const list = useAsync(() => api.identities.listIdentities({ limit: 20, cursor: pages.cursor, search }), [pages.cursor, search]);
  const change = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    const done = await change.run(() => api.identities.createIdentity({ externalId: externalId.trim() }));
    if (done) {
      setExternalId("");
      list.reload();
    }
  };
  return (
    <Page title="Identities" intro="An identity is one of your users or tenants; its keys share its rate limits and credits.">
      <NeedNote need={["identity", "create_identity"]} consequence="it cannot create identities." />
      <form class="card inline" onSubmit={create} aria-label="Create an identity">
        <label>External id <input value={externalId} required maxLength={255} disabled={!can("identity", "create_identity")} onInput={(e) => setExternalId((e.target as HTMLInputElement).value)} /></label>
        <Guarded type="submit" need={["identity", "create_identity"]} busy={change.busy}>Create identity</Guarded>
      </form>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>Search <input type="search" placeholder="id or external id"
          onChange={(e) => { const v = (e.target as HTMLInputElement).value.trim(); pages.first(); setSearch(v || undefined); }} /></label>
      </form>
      <ErrorNote message={list.error ?? change.error} />
      {list.loading && <Loading what="Loading identities" />}
      {list.data && (
        <>
          <p class="muted">{String(list.data.total)} identit{list.data.total === 1n ? "y" : "ies"}</p>
          <div class="table-wrap">
            <table>
              <thead><tr><th>External id</th><th>Id</th><th>Rate limits</th><th>Shared credits</th><th /></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={5}>No identities.</td></tr>}
                {list.data.data.map((i) => (
                  <tr key={i.id}>
                    <td data-label="External id"><a href={`#/identities/${encodeURIComponent(i.id)}`}>{i.externalId}</a></td>
                    <td data-label="Id" class="mono">{i.id}</td>
                    <td data-label="Rate limits">{i.ratelimits.length === 0 ? "none" : i.ratelimits.map((r) => `${r.name}: ${rateText(r.limit, r.duration)}`).join(", ")}</td>
                    <td data-label="Shared credits">{creditsText(i.credits)}</td>
                    <td class="actions"><ConfirmButton need={["identity", "delete_identity"]} label="Delete" confirm="Delete identity" busy={change.busy}
                      onConfirm={() => change.run(() => api.identities.deleteIdentity({ identityId: i.id })).then(list.reload)} /></td>
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
