import { useEffect, useState } from "preact/hooks";
import { api, can } from "../api.js";
import { navigate } from "../router.js";
import { ConfirmButton, ErrorNote, Guarded, Loading, Page, useAction, useAsync } from "../ui.js";

/** Every setting the form holds: saved together, so a field left empty is cleared (apis.updateApi's update mask). */
const MASK = ["name", "ip_whitelist", "delete_protection", "store_encrypted_keys", "default_prefix", "default_bytes"];

interface Form {
  name: string;
  /** One address or CIDR range a line. */
  allowList: string;
  deleteProtection: boolean;
  storeEncryptedKeys: boolean;
  defaultPrefix: string;
  defaultBytes: string;
}

/** What getApi and updateApi both answer. */
interface Settings {
  name: string;
  ipWhitelist: string[];
  deleteProtection: boolean;
  storeEncryptedKeys: boolean;
  defaultPrefix?: string;
  defaultBytes: number;
}

function formOf(loaded: Settings): Form {
  return {
    name: loaded.name,
    allowList: loaded.ipWhitelist.join("\n"),
    deleteProtection: loaded.deleteProtection,
    storeEncryptedKeys: loaded.storeEncryptedKeys,
    defaultPrefix: loaded.defaultPrefix ?? "",
    defaultBytes: String(loaded.defaultBytes),
  };
}

/**
 * An api's settings (apis.updateApi): rename, IP allow-list, delete protection, stored recoverable keys, and the
 * prefix and byte length new keys take; and deleting the api. The server checks every value (a bad allow-list entry
 * is named in the error); controls the root key may not use are disabled with the reason.
 */
export function ApiSettingsPage({ apiId }: { apiId: string }) {
  const info = useAsync(() => api.apis.getApi({ apiId }), [apiId]);
  const [form, setForm] = useState<Form>();
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const remove = useAction();
  useEffect(() => void (info.data && setForm(formOf(info.data))), [info.data]);
  const allowed = can("api", "update_api");
  const text = (name: "name" | "allowList" | "defaultPrefix" | "defaultBytes") => (e: Event) => {
    setSaved(false);
    setForm({ ...(form as Form), [name]: (e.target as HTMLInputElement | HTMLTextAreaElement).value });
  };
  const flag = (name: "deleteProtection" | "storeEncryptedKeys") => (e: Event) => {
    setSaved(false);
    setForm({ ...(form as Form), [name]: (e.target as HTMLInputElement).checked });
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!form) return;
    const bytes = form.defaultBytes.trim();
    const updated = await save.run(() => api.apis.updateApi({
      apiId,
      name: form.name.trim(),
      ipWhitelist: form.allowList.split(/[\n,]/).map((entry) => entry.trim()).filter(Boolean),
      deleteProtection: form.deleteProtection,
      storeEncryptedKeys: form.storeEncryptedKeys,
      defaultPrefix: form.defaultPrefix.trim() || undefined,
      defaultBytes: bytes === "" ? undefined : Number(bytes),
      updateMask: { paths: MASK },
    }));
    if (updated) {
      setForm(formOf(updated));
      setSaved(true);
      info.reload(); // the title shows the new name
    }
  };
  const deleteApi = async () => {
    const done = await remove.run(() => api.apis.deleteApi({ apiId }));
    if (done) navigate("/apis");
  };
  return (
    <Page title={info.data ? `Settings of ${info.data.name}` : "API settings"} intro={<span class="mono">{apiId}</span>}>
      <ErrorNote message={info.error} />
      {info.loading && !form && <Loading what="Loading the api" />}
      {form && (
        <form class="card" onSubmit={submit} aria-label="API settings">
          <h2>Settings</h2>
          {!allowed && <p class="hint">Your root key lacks api.*.update_api: the settings are read only.</p>}
          <fieldset class="plain" disabled={!allowed}>
            <label>Name <input value={form.name} required minLength={3} maxLength={256} onInput={text("name")} /></label>
            <label>IP allow-list
              <textarea rows={4} value={form.allowList} placeholder="any address" spellcheck={false} onInput={text("allowList")} />
            </label>
            <p class="hint">One IPv4 or IPv6 address or CIDR range a line (<span class="mono">10.0.0.0/8</span>, <span class="mono">2001:db8::/32</span>), at most 100. Keys of this API then verify only from these addresses (else FORBIDDEN). Empty: from anywhere.</p>
            <div class="fields">
              <label>Default prefix <input value={form.defaultPrefix} maxLength={16} pattern="[a-zA-Z0-9_]*" placeholder="none" onInput={text("defaultPrefix")} /></label>
              <label>Default byte length <input value={form.defaultBytes} inputMode="numeric" type="number" min={16} max={255} placeholder="16" onInput={text("defaultBytes")} /></label>
            </div>
            <p class="hint">New keys of this API take these when they are created without a prefix or byte length.</p>
            <label class="check"><input type="checkbox" checked={form.deleteProtection} onChange={flag("deleteProtection")} /> Delete protection (the API cannot be deleted while on)</label>
            <label class="check"><input type="checkbox" checked={form.storeEncryptedKeys} onChange={flag("storeEncryptedKeys")} /> Store recoverable keys encrypted</label>
          </fieldset>
          <ErrorNote message={save.error} />
          {saved && <p class="saved" role="status">Saved.</p>}
          <Guarded type="submit" need={["api", "update_api"]} busy={save.busy}>Save settings</Guarded>
        </form>
      )}
      {info.data && (
        <section class="card" aria-label="Delete this api">
          <h2>Delete this api</h2>
          <p class="hint">Its keys stop verifying at once (NOT_FOUND). {form?.deleteProtection ? "Turn delete protection off and save first." : ""}</p>
          <ErrorNote message={remove.error} />
          <ConfirmButton need={["api", "delete_api"]} label="Delete API" confirm="Delete API now" busy={remove.busy} onConfirm={deleteApi} />
        </section>
      )}
      <p><a href={`#/apis/${encodeURIComponent(apiId)}`}>← Keys of this api</a></p>
    </Page>
  );
}
