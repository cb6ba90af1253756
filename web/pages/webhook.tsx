import { useState } from "preact/hooks";
import { api, can } from "../api.js";
import { navigate } from "../router.js";
import { ConfirmButton, ErrorNote, formatTime, Guarded, Loading, OneTimeSecret, Page, useAction, useAsync } from "../ui.js";
import { creditLevelsText, HOUR_MS, UPDATE_WEBHOOK as UPDATE, webhookState } from "../webhook-form.js";
import { Deliveries } from "./webhook-deliveries.js";

/**
 * One endpoint: what it receives, pause or resume, a test message, a new secret (shown once), deletion, and its
 * deliveries. Controls the root key may not use are disabled; each missing permission is named once.
 */
export function WebhookPage({ webhookId }: { webhookId: string }) {
  const info = useAsync(() => api.webhooks.getWebhook({ webhookId }), [webhookId]);
  const action = useAction();
  const [version, setVersion] = useState(0);
  const [secret, setSecret] = useState<{ value: string; previousUntil: bigint }>();
  const [note, setNote] = useState<string>();
  const w = info.data?.webhook;
  const act = async (work: () => Promise<unknown>, done: string) => {
    setNote(undefined);
    if ((await action.run(work)) !== undefined) {
      setNote(done);
      info.reload();
      setVersion((v) => v + 1);
    }
  };
  const remove = async () => {
    if (await action.run(() => api.webhooks.deleteWebhook({ webhookId }))) navigate("/webhooks");
  };
  const rotate = async () => {
    const rotated = await action.run(() => api.webhooks.rotateSecret({ webhookId }));
    if (rotated) setSecret({ value: rotated.secret, previousUntil: rotated.previousSecretExpiresAt });
  };
  const state = w && webhookState(w);
  return (
    <Page title={w ? `Webhook ${w.url}` : "Webhook"} intro={<span class="mono">{webhookId}</span>}>
      <ErrorNote message={info.error} />
      {info.loading && !w && <Loading what="Loading the webhook" />}
      {w && state && (
        <>
          <section class="card" aria-label="Endpoint">
            <dl class="facts">
              <dt>URL</dt><dd class="mono">{w.url}</dd>
              <dt>State</dt><dd><span class={`badge ${state.tone}`}>{state.label}</span></dd>
              <dt>Events</dt><dd><ul class="perms">{w.events.map((e) => <li key={e} class="mono">{e}</li>)}</ul></dd>
              <dt>API</dt><dd class="mono">{w.apiId ?? "all APIs"}</dd>
              {w.description && <><dt>Description</dt><dd>{w.description}</dd></>}
              {w.events.includes("key.credits.low") && <><dt>Credit levels</dt><dd>{creditLevelsText(w.thresholds?.credits ?? []) || "none"}</dd></>}
              {w.events.includes("key.expiring") && <><dt>Expiry notice</dt><dd>{Number(w.thresholds?.expiringBeforeMs ?? 86_400_000n) / HOUR_MS} h before</dd></>}
              <dt>Created</dt><dd>{formatTime(w.createdAt)}</dd>
              {w.previousSecretExpiresAt !== undefined && <><dt>Previous secret</dt><dd>also signs until {formatTime(w.previousSecretExpiresAt)}</dd></>}
            </dl>
          </section>
          <section class="card" aria-label="Actions">
            <h2>Actions</h2>
            {!can(...UPDATE) && <p class="hint">Your root key lacks webhook.*.update_webhook: pause, resume, test, rotate and redeliver are disabled.</p>}
            {!can("webhook", "delete_webhook") && <p class="hint">Your root key lacks webhook.*.delete_webhook: the webhook cannot be deleted.</p>}
            <div class="actions">
              <Guarded need={UPDATE} busy={action.busy} onClick={() => act(() => api.webhooks.updateWebhook({ webhookId, enabled: !w.enabled }), w.enabled ? "Paused: messages queue until you resume." : "Resumed: queued messages are being delivered.")}>
                {w.enabled ? "Pause" : "Resume"}
              </Guarded>
              <Guarded need={UPDATE} busy={action.busy} onClick={() => act(() => api.webhooks.sendTest({ webhookId }), "Test message queued: it appears below.")}>Send test</Guarded>
              <ConfirmButton need={UPDATE} label="Rotate secret" confirm="Rotate now" busy={action.busy} onConfirm={rotate} />
              <ConfirmButton need={["webhook", "delete_webhook"]} label="Delete webhook" confirm="Delete webhook now" busy={action.busy} onConfirm={remove} />
            </div>
            <ErrorNote message={action.error} />
            {note && <p class="saved" role="status">{note}</p>}
            {secret && (
              <>
                <OneTimeSecret label="New signing secret" value={secret.value} onDone={() => setSecret(undefined)} />
                <p class="hint">You will not see it again. The previous secret keeps signing beside it until {formatTime(secret.previousUntil)}.</p>
              </>
            )}
          </section>
          <Deliveries webhookId={webhookId} version={version} />
        </>
      )}
      <p><a href="#/webhooks">← All webhooks</a></p>
    </Page>
  );
}
