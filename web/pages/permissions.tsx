import { useState } from "preact/hooks";
import type { Role } from "../../gen/keyward/v1/permissions_pb.js";
import { api, can } from "../api.js";
import { ConfirmButton, ErrorNote, Guarded, Loading, NeedNote, Page, Pager, SearchBox, useAction, useAsync, useCursorPages } from "../ui.js";

const names = (text: string) => [...new Set(text.split(",").map((s) => s.trim()).filter(Boolean))];

/** The workspace's permissions: searched, 20 a page; create one, delete one (keys and roles lose it). */
function Permissions({ changed }: { changed: number }) {
  const [search, setSearch] = useState<string>();
  const [form, setForm] = useState({ name: "", description: "" });
  const pages = useCursorPages();
  const readable = can("rbac", "read_permission");
  const list = useAsync(async () => (readable ? api.permissions.listPermissions({ limit: 20, cursor: pages.cursor, search }) : undefined), [pages.cursor, search, readable, changed]);
  const change = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    const done = await change.run(() => api.permissions.createPermission({ name: form.name.trim(), description: form.description.trim() || undefined }));
    if (done) {
      setForm({ name: "", description: "" });
      list.reload();
    }
  };
  return (
    <section aria-labelledby="permissions-heading">
      <h2 id="permissions-heading">Permissions</h2>
      <form class="card" onSubmit={create} aria-label="Create a permission">
        <NeedNote need={["rbac", "create_permission"]} consequence="it cannot create permissions." />
        <fieldset class="plain fields" disabled={!can("rbac", "create_permission")}>
          <label>Permission name <input value={form.name} required maxLength={512} placeholder="documents.read" onInput={(e) => setForm({ ...form, name: (e.target as HTMLInputElement).value })} /></label>
          <label>Description <input value={form.description} maxLength={512} onInput={(e) => setForm({ ...form, description: (e.target as HTMLInputElement).value })} /></label>
        </fieldset>
        <Guarded type="submit" need={["rbac", "create_permission"]} busy={change.busy}>Create permission</Guarded>
      </form>
      <SearchBox label="Search permissions" placeholder="part of a name, slug or description" need={["rbac", "read_permission"]}
        onSearch={(text) => { pages.first(); setSearch(text); list.reload(); }} />
      <NeedNote need={["rbac", "read_permission"]} consequence="the list is not available." />
      <NeedNote need={["rbac", "delete_permission"]} consequence="permissions cannot be deleted." />
      <ErrorNote message={list.error ?? change.error} />
      {list.loading && <Loading what="Loading permissions" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table aria-label="Permissions">
              <thead><tr><th>Name</th><th>Slug</th><th>Description</th><th /></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={4}>{search === undefined ? "No permissions yet." : `No permission matches “${search}”.`}</td></tr>}
                {list.data.data.map((p) => (
                  <tr key={p.id}>
                    <td data-label="Name" class="name">{p.name}<div class="muted mono">{p.id}</div></td>
                    <td data-label="Slug" class="mono">{p.slug}</td>
                    <td data-label="Description">{p.description ?? "—"}</td>
                    <td class="actions"><ConfirmButton need={["rbac", "delete_permission"]} label="Delete" confirm="Delete permission" busy={change.busy}
                      onConfirm={() => change.run(() => api.permissions.deletePermission({ permission: p.id })).then(list.reload)} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} label="Permission pages" />
        </>
      )}
    </section>
  );
}

/** A role's permission set, edited as a comma-separated list of names and saved whole (setRolePermissions). */
function RolePermissions({ role, onSaved }: { role: Role; onSaved: () => void }) {
  const [text, setText] = useState(role.permissions.map((p) => p.name).join(", "));
  const save = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await save.run(() => api.permissions.setRolePermissions({ roleId: role.id, permissions: names(text) }))) onSaved();
  };
  return (
    <form class="inline" onSubmit={submit} aria-label={`Permissions of ${role.name}`}>
      <label>Permissions of {role.name} <input value={text} placeholder="none" disabled={!can("rbac", "update_role")} onInput={(e) => setText((e.target as HTMLInputElement).value)} /></label>
      <Guarded type="submit" need={["rbac", "update_role"]} busy={save.busy}>Save permissions</Guarded>
      <ErrorNote message={save.error} />
    </form>
  );
}

/** The workspace's roles: searched, 20 a page; create one with its permissions, edit its set, delete it. */
/** `onChange`: a role's permissions changed, which may have created permissions (the permission list reloads). */
function Roles({ onChange }: { onChange: () => void }) {
  const [search, setSearch] = useState<string>();
  const [form, setForm] = useState({ name: "", description: "", permissions: "" });
  const pages = useCursorPages();
  const readable = can("rbac", "read_role");
  const list = useAsync(async () => (readable ? api.permissions.listRoles({ limit: 20, cursor: pages.cursor, search }) : undefined), [pages.cursor, search, readable]);
  const change = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    const done = await change.run(() => api.permissions.createRole({
      name: form.name.trim(), description: form.description.trim() || undefined, permissions: names(form.permissions),
    }));
    if (done) {
      setForm({ name: "", description: "", permissions: "" });
      list.reload();
      onChange();
    }
  };
  const field = (name: keyof typeof form) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  return (
    <section aria-labelledby="roles-heading">
      <h2 id="roles-heading">Roles</h2>
      <form class="card" onSubmit={create} aria-label="Create a role">
        <NeedNote need={["rbac", "create_role"]} consequence="it cannot create roles." />
        <fieldset class="plain fields" disabled={!can("rbac", "create_role")}>
          <label>Role name <input value={form.name} required maxLength={512} placeholder="reader" onInput={field("name")} /></label>
          <label>Description <input value={form.description} maxLength={512} onInput={field("description")} /></label>
          <label>Permissions <input value={form.permissions} placeholder="comma-separated names" onInput={field("permissions")} /></label>
        </fieldset>
        <Guarded type="submit" need={["rbac", "create_role"]} busy={change.busy}>Create role</Guarded>
      </form>
      <SearchBox label="Search roles" placeholder="part of a name or description" need={["rbac", "read_role"]}
        onSearch={(text) => { pages.first(); setSearch(text); list.reload(); }} />
      <NeedNote need={["rbac", "read_role"]} consequence="the list is not available." />
      <NeedNote need={["rbac", "update_role"]} consequence="role permissions are read only." />
      <NeedNote need={["rbac", "delete_role"]} consequence="roles cannot be deleted." />
      <ErrorNote message={list.error ?? change.error} />
      {list.loading && <Loading what="Loading roles" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table aria-label="Roles">
              <thead><tr><th>Role</th><th>Permissions</th><th /></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={3}>{search === undefined ? "No roles yet." : `No role matches “${search}”.`}</td></tr>}
                {list.data.data.map((r) => (
                  <tr key={r.id}>
                    <td data-label="Role" class="name">{r.name}<div class="muted">{r.description}</div><div class="muted mono">{r.id}</div></td>
                    <td data-label="Permissions"><RolePermissions key={r.permissions.map((p) => p.id).join()} role={r} onSaved={() => { list.reload(); onChange(); }} /></td>
                    <td class="actions"><ConfirmButton need={["rbac", "delete_role"]} label="Delete" confirm="Delete role" busy={change.busy}
                      onConfirm={() => change.run(() => api.permissions.deleteRole({ role: r.id })).then(list.reload)} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} label="Role pages" />
        </>
      )}
    </section>
  );
}

export function PermissionsPage() {
  const [changed, setChanged] = useState(0);
  return (
    <Page title="Permissions and roles" intro="Permissions name what a key may do; roles bundle them. Keys verify against both (the permissions query of keys.verifyKey).">
      <Roles onChange={() => setChanged((n) => n + 1)} />
      <Permissions changed={changed} />
    </Page>
  );
}
