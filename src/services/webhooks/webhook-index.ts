import type { DocumentStore } from "../../store/ports/documents.js";
import type { WebhookRecord } from "../../store/ports/webhooks.js";
import type { InvalidationBus } from "../../store/invalidation-bus.js";

/**
 * Endpoints of one workspace by event type: enabled and paused ones (a paused endpoint's messages queue and wait for
 * it to resume); one disabled after persistent failure gets no new messages.
 */
type Subscriptions = Map<string, WebhookRecord[]>;

/**
 * Every instance's in-memory view of which endpoints want which events, so the verification path asks "does this
 * workspace want key.credits.low?" with two map lookups and no I/O. Loaded whole at start; a workspace is reloaded
 * after each change to its endpoints, here and, through the invalidation bus, on every other instance; a slow full
 * reload every `refreshMs` repairs a missed bus message.
 */
export function createWebhookIndex(deps: { documents: DocumentStore; bus: InvalidationBus; refreshMs?: number; log?: (line: string) => void }) {
  let byWorkspace = new Map<string, Subscriptions>();
  /** Per workspace, the highest `key.credits.low` levels of its endpoints: above both, no crossing is possible. */
  let ceilings = new Map<string, { remaining: number; percent: number }>();
  const log = deps.log ?? ((line: string) => console.error(line));

  function group(records: readonly WebhookRecord[]): Map<string, Subscriptions> {
    const out = new Map<string, Subscriptions>();
    for (const record of records) {
      if (!record.enabled && record.disabledReason !== "paused") continue;
      let subs = out.get(record.workspaceId);
      if (!subs) out.set(record.workspaceId, (subs = new Map()));
      for (const event of record.events) {
        const list = subs.get(event);
        if (list) list.push(record);
        else subs.set(event, [record]);
      }
    }
    return out;
  }

  async function readAll(read: (page: { limit: number; after?: string }) => Promise<WebhookRecord[]>): Promise<WebhookRecord[]> {
    const all: WebhookRecord[] = [];
    for (let after: string | undefined; ;) {
      const page = await read({ limit: 500, after });
      all.push(...page);
      if (page.length < 500) return all;
      after = page[page.length - 1].id;
    }
  }

  function ceilingsOf(groups: Map<string, Subscriptions>): Map<string, { remaining: number; percent: number }> {
    const out = new Map<string, { remaining: number; percent: number }>();
    for (const [workspaceId, subs] of groups) {
      const ceiling = { remaining: -1, percent: 0 };
      for (const w of subs.get("key.credits.low") ?? []) {
        for (const t of w.thresholds.credits) {
          if ("remaining" in t) ceiling.remaining = Math.max(ceiling.remaining, t.remaining);
          else ceiling.percent = Math.max(ceiling.percent, t.percent);
        }
      }
      out.set(workspaceId, ceiling);
    }
    return out;
  }

  async function loadAll(): Promise<void> {
    byWorkspace = group(await readAll((page) => deps.documents.webhooks.all(page)));
    ceilings = ceilingsOf(byWorkspace);
  }

  async function reload(workspaceId: string): Promise<void> {
    const groups = group(await readAll((page) => deps.documents.webhooks.list(workspaceId, page)));
    const subs = groups.get(workspaceId);
    if (subs) byWorkspace.set(workspaceId, subs);
    else byWorkspace.delete(workspaceId);
    const ceiling = ceilingsOf(groups).get(workspaceId);
    if (ceiling) ceilings.set(workspaceId, ceiling);
    else ceilings.delete(workspaceId);
  }

  const reloadLogged = (workspaceId: string) =>
    void reload(workspaceId).catch((error: unknown) => log(`webhooks: cannot reload the endpoints of ${workspaceId}: ${(error as Error).message}`));
  deps.bus.subscribe((message) => {
    if (message.kind === "webhooks") reloadLogged(message.workspaceId);
    else if (message.kind === "all") void loadAll().catch(() => {});
  });
  const timer = setInterval(() => void loadAll().catch(() => {}), deps.refreshMs ?? 60_000);
  timer.unref();

  return {
    loadAll,
    /** Reloads the workspace here now (awaitable), and tells the other instances. */
    async changed(workspaceId: string): Promise<void> {
      await reload(workspaceId);
      deps.bus.publish({ kind: "webhooks", workspaceId });
    },
    /** The enabled or paused endpoints of the workspace subscribed to `type` (and, when the event names an api, bound to it or to none). */
    subscribers(workspaceId: string, type: string, apiId?: string): readonly WebhookRecord[] {
      const list = byWorkspace.get(workspaceId)?.get(type);
      if (!list) return NONE;
      return list.filter((w) => w.apiId === undefined || w.apiId === apiId);
    },
    /** Every enabled or paused endpoint, of any workspace, subscribed to `type` (the periodic scans ask this). */
    everyone(type: string): WebhookRecord[] {
      return [...byWorkspace.values()].flatMap((subs) => subs.get(type) ?? []);
    },
    /**
     * Whether a balance of `remaining` (of a key refilled with `base`, if any) may be at or below some endpoint's
     * `key.credits.low` level: false for every verification far from all levels, which then costs one lookup.
     */
    mayBeLow(workspaceId: string, remaining: number, base: number | undefined): boolean {
      const ceiling = ceilings.get(workspaceId);
      if (!ceiling) return false;
      if (remaining <= ceiling.remaining) return true;
      return base !== undefined && ceiling.percent > 0 && remaining <= Math.floor((ceiling.percent * base) / 100);
    },
    /** Whether any endpoint of the workspace wants `type`: the whole cost of a verification with no such endpoint. */
    wants(workspaceId: string, type: string): boolean {
      return byWorkspace.get(workspaceId)?.has(type) ?? false;
    },
    close(): void {
      clearInterval(timer);
    },
  };
}

const NONE: readonly WebhookRecord[] = [];

export type WebhookIndex = ReturnType<typeof createWebhookIndex>;
