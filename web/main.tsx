import "./styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { loadSession, session, signIn, signOut, type Session } from "./api.js";
import { AnalyticsPage } from "./pages/analytics.js";
import { ApiKeysPage } from "./pages/api-keys.js";
import { ApiSettingsPage } from "./pages/api-settings.js";
import { ApisPage } from "./pages/apis.js";
import { AuditLogPage } from "./pages/audit-log.js";
import { IdentitiesPage } from "./pages/identities.js";
import { IdentityPage } from "./pages/identity.js";
import { KeyPage } from "./pages/key.js";
import { PermissionsPage } from "./pages/permissions.js";
import { RatelimitsPage } from "./pages/ratelimits.js";
import { RootKeysPage } from "./pages/root-keys.js";
import { WebhookPage } from "./pages/webhook.js";
import { WebhooksPage } from "./pages/webhooks.js";
import { currentRoute } from "./router.js";
import { ErrorNote, Loading } from "./ui.js";

const NAV: [path: string, label: string][] = [
  ["/root-keys", "Root keys"],
  ["/apis", "APIs and keys"],
  ["/identities", "Identities"],
  ["/permissions", "Permissions"],
  ["/ratelimits", "Rate limits"],
  ["/analytics", "Analytics"],
  ["/audit-log", "Audit log"],
  ["/webhooks", "Webhooks"],
];

function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [rootKey, setRootKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const s = await signIn(rootKey.trim());
      setRootKey(""); // the key is not kept once exchanged
      onSignedIn(s);
    } catch (err) {
      setError(err instanceof TypeError ? "The server cannot be reached." : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form class="card" onSubmit={submit} aria-label="Sign in">
        <h1>Keyward</h1>
        <p>Sign in with a root key. It is exchanged for a session of one hour and is not stored in this browser.</p>
        <label>Root key <input type="password" autoComplete="off" value={rootKey} required autoFocus
          onInput={(e) => setRootKey((e.target as HTMLInputElement).value)} /></label>
        <ErrorNote message={error} />
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>{busy ? "Signing in…" : "Sign in"}</button>
      </form>
    </main>
  );
}

function Route({ route }: { route: string[] }) {
  const [first, id, sub] = route;
  if (first === "apis" && id && sub === "settings") return <ApiSettingsPage apiId={id} />;
  if (first === "apis" && id) return <ApiKeysPage apiId={id} />;
  if (first === "apis") return <ApisPage />;
  if (first === "keys" && id) return <KeyPage keyId={id} />;
  if (first === "identities" && id) return <IdentityPage identityId={id} />;
  if (first === "identities") return <IdentitiesPage />;
  if (first === "ratelimits") return <RatelimitsPage />;
  if (first === "permissions") return <PermissionsPage />;
  if (first === "analytics") return <AnalyticsPage />;
  if (first === "audit-log") return <AuditLogPage />;
  if (first === "webhooks" && id) return <WebhookPage webhookId={id} />;
  if (first === "webhooks") return <WebhooksPage />;
  return <RootKeysPage />;
}

function App() {
  const [state, setState] = useState<{ loading: boolean; error?: string }>({ loading: true });
  const [, setSignedIn] = useState<Session>();
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    loadSession().then((s) => { setSignedIn(s); setState({ loading: false }); }, (e: Error) => setState({ loading: false, error: e.message }));
    const onHash = () => setRoute(currentRoute());
    const onSignedOut = () => setSignedIn(undefined);
    addEventListener("hashchange", onHash);
    addEventListener("keyward:signed-out", onSignedOut);
    return () => { removeEventListener("hashchange", onHash); removeEventListener("keyward:signed-out", onSignedOut); };
  }, []);
  if (state.loading) return <main class="signin"><Loading what="Loading the dashboard" /></main>;
  if (state.error) return <main class="signin"><ErrorNote message={`The dashboard could not start: ${state.error}`} /></main>;
  const s = session();
  if (!s) return <SignIn onSignedIn={setSignedIn} />;
  const active = `/${route[0] === "keys" ? "apis" : route[0] ?? "root-keys"}`;
  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to content</a>
      <header>
        <span class="brand">Keyward</span>
        <nav aria-label="Sections">
          {NAV.map(([path, label]) => (
            <a key={path} href={`#${path}`} aria-current={active === path ? "page" : undefined}>{label}</a>
          ))}
        </nav>
        <div class="who">
          <span class="muted" title={`Root key ${s.rootKeyId} of workspace ${s.workspaceId}`}>{s.rootKeyName ?? <span class="mono">{s.rootKeyId}</span>}</span>
          <button type="button" onClick={() => signOut().then(() => setSignedIn(undefined))}>Sign out</button>
        </div>
      </header>
      <main id="main">
        <Route route={route} />
      </main>
    </div>
  );
}

const root = document.getElementById("app") as HTMLElement;
root.textContent = ""; // the server's "Loading…" placeholder
render(<App />, root);
