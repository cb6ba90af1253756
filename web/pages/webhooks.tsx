import { api, can } from "../api.js";
import { ErrorNote, formatTime, Loading, Page, Pager, useAsync, useCursorPages } from "../ui.js";
import { webhookState } from "../webhook-form.js";
import { CreateWebhook } from "./webhook-create.js";

/** The workspace's endpoints, 20 a page, each with its state; a click opens its deliveries and actions. */
export function WebhooksPage() {
  const pages = useCursorPages();
  const allowed = can("webhook", "read_webhook");
  const list = useAsync(async () => (allowed ? api.webhooks.listWebhooks({ limit: 20, cursor: pages.cursor }) : undefined), [pages.cursor, allowed]);
  return (
    <Page title="Webhooks" intro="Endpoints that receive this workspace's events (audited changes and usage signals), signed as Standard Webhooks and delivered at least once.">
      <CreateWebhook onCreated={list.reload} />
      <h2>Endpoints</h2>
      {!allowed && <p class="hint">Your root key lacks webhook.*.read_webhook: the list is not available.</p>}
      <ErrorNote message={list.error} />
      {list.loading && !list.data && allowed && <Loading what="Loading webhooks" />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th>URL</th><th>Events</th><th>API</th><th>State</th><th>Created</th></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={5}>No webhooks yet.</td></tr>}
                {list.data.data.map((w) => {
                  const state = webhookState(w);
                  return (
                    <tr key={w.id}>
                      <td data-label="URL" class="name"><a href={`#/webhooks/${encodeURIComponent(w.id)}`}>{w.url}</a><div class="muted mono">{w.id}</div>{w.description && <div class="muted">{w.description}</div>}</td>
                      <td data-label="Events"><details><summary>{w.events.length} event{w.events.length === 1 ? "" : "s"}</summary><ul class="perms">{w.events.map((e) => <li key={e} class="mono">{e}</li>)}</ul></details></td>
                      <td data-label="API" class="mono">{w.apiId ?? "all"}</td>
                      <td data-label="State"><span class={`badge ${state.tone}`}>{state.label}</span></td>
                      <td data-label="Created">{formatTime(w.createdAt)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} label="Webhook pages" />
        </>
      )}
    </Page>
  );
}
