import { useState } from "preact/hooks";
import { api, can, session } from "../api.js";
import { navigate } from "../router.js";
import { ErrorNote, formatTime, Guarded, Loading, NeedNote, Page, Pager, SearchBox, useAction, useAsync, useCursorPages } from "../ui.js";

function CreateApi() {
  const [name, setName] = useState("");
  const create = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await create.run(() => api.apis.createApi({ name: name.trim() }));
    if (created) navigate(`/apis/${created.apiId}`);
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Create an API">
      <h2>Create an API</h2>
      <NeedNote need={["api", "create_api"]} consequence="it cannot create APIs." />
      <div class="inline-row">
        <label>Name <input value={name} required minLength={3} maxLength={256} placeholder="my-api" disabled={!can("api", "create_api")}
          onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
        <Guarded type="submit" need={["api", "create_api"]} busy={create.busy}>Create API</Guarded>
      </div>
      <p class="hint">3–256 characters. The new API opens at once.</p>
      <ErrorNote message={create.error} />
    </form>
  );
}

/** The workspace's apis (those the root key may read), searched by name, 20 a page; each opens its keys. */
function ApiList() {
  const [search, setSearch] = useState<string>();
  const pages = useCursorPages();
  const allowed = can("api", "read_api");
  const countable = can("api", "read_key");
  const list = useAsync(async () => {
    if (!allowed) return undefined;
    const page = await api.apis.listApis({ limit: 20, cursor: pages.cursor, search });
    // Each api's key count is listKeys' total (one call a row, a page at a time); without read_key, none.
    const counts = countable
      ? await Promise.all(page.data.map((a) => api.apis.listKeys({ apiId: a.id, limit: 1 }).then((r) => String(r.total), () => "—")))
      : page.data.map(() => "—");
    return { ...page, counts };
  }, [pages.cursor, search, allowed, countable]);
  const some = allowed && !session()?.permissions.includes("api.*.read_api");
  return (
    <>
      <h2>All APIs</h2>
      <SearchBox label="Search APIs" placeholder="part of a name" need={["api", "read_api"]} onSearch={(text) => { pages.first(); setSearch(text); list.reload(); }} />
      {!allowed && <p class="hint">Your root key lacks api.*.read_api: the list is not available.</p>}
      {some && <p class="hint">Your root key may read only some APIs: the list shows those.</p>}
      <ErrorNote message={list.error} />
      {list.loading && <Loading what="Loading APIs" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th>Name</th><th>Id</th><th>Keys</th><th>Created</th></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={4}>{search === undefined ? "No APIs yet." : `No API name contains “${search}”.`}</td></tr>}
                {list.data.data.map((a, i) => (
                  <tr key={a.id}>
                    <td data-label="Name" class="name"><a href={`#/apis/${encodeURIComponent(a.id)}`}>{a.name}</a></td>
                    <td data-label="Id" class="mono">{a.id}</td>
                    <td data-label="Keys">{list.data?.counts[i]}</td>
                    <td data-label="Created">{formatTime(a.createdAt)}</td>
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

export function ApisPage() {
  return (
    <Page title="APIs" intro="An API groups keys. Open one to list, search and manage its keys.">
      <CreateApi />
      <ApiList />
    </Page>
  );
}
