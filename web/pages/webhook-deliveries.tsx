import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { ErrorNote, formatTime, Guarded, Loading, Pager, useAction, useAsync, useCursorPages } from "../ui.js";
import { UPDATE_WEBHOOK as UPDATE } from "../webhook-form.js";

/** Pending messages change on the server by themselves: the list refreshes while it shows one. */
const REFRESH_MS = 2000;

/** One endpoint's messages, newest first, filtered by status, with redeliver; `version` reloads it from outside. */
export function Deliveries({ webhookId, version }: { webhookId: string; version: number }) {
  const [status, setStatus] = useState("");
  const pages = useCursorPages();
  const list = useAsync(
    () => api.webhooks.listDeliveries({ webhookId, status: status || undefined, limit: 20, cursor: pages.cursor }),
    [webhookId, status, pages.cursor, version],
  );
  const redeliver = useAction();
  const [queued, setQueued] = useState<string>();
  useEffect(() => setQueued(undefined), [version]);
  const pending = list.data?.data.some((d) => d.status === "pending") ?? false;
  useEffect(() => {
    if (!pending || list.loading) return;
    const timer = setTimeout(list.reload, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [pending, list.loading, list.data]);
  const again = async (messageId: string) => {
    if (await redeliver.run(() => api.webhooks.redeliver({ webhookId, messageId }))) {
      setQueued(messageId);
      list.reload();
    }
  };
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      <div class="inline-row narrow">
        <label>Status
          <select value={status} onChange={(e) => { pages.first(); setStatus((e.target as HTMLSelectElement).value); }}>
            <option value="">All</option><option value="pending">Pending</option><option value="delivered">Delivered</option><option value="failed">Failed</option>
          </select>
        </label>
        <button type="button" onClick={list.reload} disabled={list.loading} aria-busy={list.loading}>Refresh</button>
      </div>
      <ErrorNote message={list.error ?? redeliver.error} />
      {queued && <p class="saved" role="status">Message {queued} is queued to be sent again now.</p>}
      {list.loading && !list.data && <Loading what="Loading deliveries" />}
      {list.data && (
        <>
          <div class="table-wrap" aria-busy={list.loading}>
            <table>
              <thead><tr><th>Message</th><th>Status</th><th>Attempts</th><th>Response</th><th>Latency</th><th>Next attempt</th><th /></tr></thead>
              <tbody>
                {list.data.data.length === 0 && <tr><td colSpan={7}>{status ? `No ${status} messages.` : "No messages yet: send a test."}</td></tr>}
                {list.data.data.map((d) => (
                  <tr key={d.id}>
                    <td data-label="Message"><span class="mono">{d.type}</span><div class="muted mono">{d.id}</div><div class="muted">{formatTime(d.createdAt)}</div></td>
                    <td data-label="Status">
                      <span class={`badge ${d.status === "delivered" ? "ok" : d.status === "failed" ? "off" : "wait"}`}>{d.status}</span>
                      {d.deliveredAt !== undefined && <div class="muted">{formatTime(d.deliveredAt)}</div>}
                    </td>
                    <td data-label="Attempts">{d.attempts}</td>
                    <td data-label="Response">{d.responseCode ?? "no answer"}{d.lastError && <div class="muted">{d.lastError}</div>}</td>
                    <td data-label="Latency">{d.latencyMs === undefined ? "—" : `${d.latencyMs} ms`}</td>
                    <td data-label="Next attempt">{d.status === "pending" ? formatTime(d.nextAttemptAt) : "—"}</td>
                    <td><Guarded need={UPDATE} busy={redeliver.busy} onClick={() => again(d.id)}>Redeliver</Guarded></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pages={pages} pagination={list.data.pagination} label="Delivery pages" />
        </>
      )}
    </section>
  );
}
