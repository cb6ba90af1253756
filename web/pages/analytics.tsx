import { useState } from "preact/hooks";
import { api, can } from "../api.js";
import { RangePicker, UsageChart } from "../chart.js";
import { ErrorNote, Guarded, Loading, Page, useAsync } from "../ui.js";
import { replaceRouteQuery, routeQuery } from "../router.js";
import { fillBuckets, OUTCOMES, RANGES, rangeBounds, type Granularity, type RangeId } from "../usage.js";

const NEED: [string, string] = ["api", "read_analytics"];
const LACKS = "Your root key lacks api.*.read_analytics, so there is nothing to show here.";

/** What the breakdown table can group by, with its column title. */
const GROUPS = { key: "Key", api: "API", identity: "Identity", tag: "Tag", outcome: "Outcome" } as const;
type Group = keyof typeof GROUPS;

/** The filters of a view; every one is kept in the address (`#/analytics?apiId=…`), so a view reloads and shares. */
interface Filter {
  range: RangeId;
  granularity: Granularity;
  apiId: string;
  keyId: string;
  identityId: string;
  outcome: string;
  tags: string;
  tagsMatch: "any" | "all";
  groupBy: Group;
}

const DEFAULT: Filter = { range: "24h", granularity: "hour", apiId: "", keyId: "", identityId: "", outcome: "", tags: "", tagsMatch: "any", groupBy: "key" };

function filterFromUrl(): Filter {
  const query = routeQuery();
  const get = (name: keyof Filter) => query.get(name) ?? DEFAULT[name];
  const range = RANGES.find((r) => r.id === get("range")) ?? RANGES[1];
  const granularity = (range.granularities as readonly string[]).includes(get("granularity")) ? (get("granularity") as Granularity) : range.granularities[0];
  return {
    range: range.id, granularity, apiId: get("apiId"), keyId: get("keyId"), identityId: get("identityId"),
    outcome: OUTCOMES.some((o) => o.code === get("outcome")) ? get("outcome") : "",
    tags: get("tags"), tagsMatch: get("tagsMatch") === "all" ? "all" : "any",
    groupBy: get("groupBy") in GROUPS ? (get("groupBy") as Group) : DEFAULT.groupBy,
  };
}

function parseTags(text: string): string[] {
  return [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];
}

/** The request fields of a filter other than time and grouping. */
function narrowing(f: Partial<Filter>) {
  const tags = parseTags(f.tags ?? "");
  const one = (value: string | undefined) => (value?.trim() ? [value.trim()] : []);
  return {
    apiIds: one(f.apiId), keyIds: one(f.keyId), identityIds: one(f.identityId), outcomes: one(f.outcome),
    tags, tagsMatch: tags.length ? f.tagsMatch : undefined,
  };
}

/**
 * Verifications over time by outcome for `filter`, bucketed by `granularity`; `refreshed` reloads (a new range
 * ends with the bucket holding the current time). Nothing is asked when the session may not read analytics.
 */
function useUsage(filter: Partial<Filter>, range: RangeId, granularity: Granularity, refreshed: number) {
  const allowed = can(...NEED);
  return useAsync(async () => {
    if (!allowed) return undefined;
    const { start, end } = rangeBounds(range, granularity, Date.now());
    const answer = await api.analytics.getVerifications({ start: BigInt(start), end: BigInt(end), granularity, ...narrowing(filter) });
    return { points: fillBuckets(answer.data, granularity, start, end, OUTCOMES), start, end };
  }, [JSON.stringify(filter), range, granularity, refreshed, allowed]);
}

/** A key's name and API for the breakdown, when the session may read keys; its id alone otherwise. */
async function keyLabel(keyId: string): Promise<{ name?: string; apiId?: string }> {
  if (!can("api", "read_key")) return {};
  try {
    const { key } = await api.keys.getKey({ keyId });
    return { name: key?.name, apiId: key?.apiId };
  } catch {
    return {}; // deleted since, or not readable: the id says enough
  }
}

/** The groups with the most verifications in the range (grouped by `groupBy`, summed over the range, top 10). */
function Breakdown({ filter, refreshed }: { filter: Filter; refreshed: number }) {
  const top = useAsync(async () => {
    const { start, end } = rangeBounds(filter.range, filter.granularity, Date.now());
    // Month buckets keep the rows few (a range spans at most 13 months); the sums per group make them one.
    const answer = await api.analytics.getVerifications({
      start: BigInt(start), end: BigInt(end), granularity: "month", groupBy: [filter.groupBy], order: "total_desc", limit: 10_000, ...narrowing(filter),
    });
    const field = { key: "keyId", api: "apiId", identity: "identityId", tag: "tag", outcome: "outcome" } as const;
    const sums = new Map<string, { total: number; valid: number }>();
    for (const row of answer.data) {
      const group = row[field[filter.groupBy]] ?? "";
      const sum = sums.get(group) ?? { total: 0, valid: 0 };
      sum.total += Number(row.total);
      sum.valid += Number(row.valid);
      sums.set(group, sum);
    }
    const rows = [...sums].sort((a, b) => b[1].total - a[1].total || a[0].localeCompare(b[0])).slice(0, 10);
    const labels = filter.groupBy === "key" ? await Promise.all(rows.map(([id]) => keyLabel(id))) : [];
    return rows.map(([group, sum], i) => ({ group, ...sum, ...labels[i] }));
  }, [JSON.stringify(filter), refreshed]);
  const title = GROUPS[filter.groupBy];
  return (
    <div class="card">
      <h2>Top {filter.groupBy === "identity" ? "identities" : `${title.toLowerCase()}s`.replace("apis", "APIs")}</h2>
      <ErrorNote message={top.error} />
      {top.loading && <Loading what="Loading the breakdown" />}
      {top.data && (top.data.length === 0 ? <p class="muted">No verifications in this range.</p> : (
        <div class="table-wrap">
          <table aria-label={`Top by ${title.toLowerCase()}`}>
            <thead><tr><th>{title}</th>{filter.groupBy === "key" && <th>API</th>}<th>Verifications</th><th>Valid</th></tr></thead>
            <tbody>
              {top.data.map((row) => (
                <tr key={row.group}>
                  <td data-label={title}>
                    {filter.groupBy === "key" ? <a href={`#/keys/${row.group}`}>{row.name ?? <span class="mono">{row.group}</span>}</a>
                      : filter.groupBy === "identity" && row.group ? <a class="mono" href={`#/identities/${row.group}`}>{row.group}</a>
                      : filter.groupBy === "api" ? <a class="mono" href={`#/apis/${row.group}`}>{row.group}</a>
                      : <span class="mono">{row.group || "none"}</span>}
                    {filter.groupBy === "key" && row.name && <div class="muted mono">{row.group}</div>}
                  </td>
                  {filter.groupBy === "key" && <td data-label="API">{row.apiId ? <a class="mono" href={`#/apis/${row.apiId}`}>{row.apiId}</a> : "—"}</td>}
                  <td data-label="Verifications">{row.total}</td><td data-label="Valid">{row.valid}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}

export function AnalyticsPage() {
  const [form, setForm] = useState<Filter>(filterFromUrl);
  const [applied, setApplied] = useState<Filter>(form);
  const [refreshed, setRefreshed] = useState(0);
  const usage = useUsage(applied, applied.range, applied.granularity, refreshed);
  const field = (name: keyof Filter) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  const apply = (e: Event) => {
    e.preventDefault();
    const next = { ...form, tags: parseTags(form.tags).join(", ") };
    replaceRouteQuery(Object.fromEntries(Object.entries(next).map(([k, v]) => [k, v === DEFAULT[k as keyof Filter] ? undefined : v])));
    setApplied(next);
    setRefreshed((n) => n + 1);
  };
  return (
    <Page title="Verification analytics" intro="Verifications of the workspace's keys, by outcome, in UTC. New verifications show up within about a second. The address keeps the filters: reload or share it.">
      <form class="card filters" onSubmit={apply} aria-label="Analytics filters">
        <RangePicker range={form.range} granularity={form.granularity} onChange={(range, granularity) => setForm({ ...form, range, granularity })} />
        <label>API <input value={form.apiId} placeholder="api_… (all)" maxLength={255} onInput={field("apiId")} /></label>
        <label>Key <input value={form.keyId} placeholder="key_… (all)" maxLength={255} onInput={field("keyId")} /></label>
        <label>Identity <input value={form.identityId} placeholder="id_… (all)" maxLength={255} onInput={field("identityId")} /></label>
        <label>Outcome
          <select aria-label="Outcome" value={form.outcome} onChange={field("outcome")}>
            <option value="">any</option>
            {OUTCOMES.map((o) => <option key={o.code} value={o.code}>{o.code}</option>)}
          </select>
        </label>
        <label>Tags <input value={form.tags} placeholder="e.g. path=/v1/orders, region=eu" maxLength={1300} onInput={field("tags")} /></label>
        <label>Tags match
          <select aria-label="Tags match" value={form.tagsMatch} onChange={field("tagsMatch")}>
            <option value="any">any of them</option>
            <option value="all">all of them</option>
          </select>
        </label>
        <label>Group by
          <select aria-label="Group by" value={form.groupBy} onChange={field("groupBy")}>
            {Object.entries(GROUPS).map(([value, label]) => <option key={value} value={value}>{label.toLowerCase()}</option>)}
          </select>
        </label>
        <div class="submit"><Guarded type="submit" need={NEED} busy={usage.loading}>Show</Guarded></div>
      </form>
      {!can(...NEED) ? <p class="muted" role="note">{LACKS}</p> : (
        <>
          <div class="card">
            <h2>Verifications over time</h2>
            <ErrorNote message={usage.error} />
            {usage.loading && <Loading what="Loading verifications" />}
            {usage.data && <UsageChart points={usage.data.points} granularity={applied.granularity} title="Verifications over time" />}
          </div>
          <Breakdown filter={applied} refreshed={refreshed} />
        </>
      )}
    </Page>
  );
}

/** Verifications over time by outcome of one key or one identity, for their pages. */
export function UsageCard({ filter, title, what }: { filter: Partial<Filter>; title: string; what: string }) {
  const [range, setRange] = useState<{ id: RangeId; granularity: Granularity }>({ id: "24h", granularity: "hour" });
  const [refreshed, setRefreshed] = useState(0);
  const usage = useUsage(filter, range.id, range.granularity, refreshed);
  return (
    <div class="card">
      <h2>Usage over time</h2>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); setRefreshed((n) => n + 1); }} aria-label="Usage range">
        <RangePicker range={range.id} granularity={range.granularity} onChange={(id, granularity) => setRange({ id, granularity })} />
        <div class="submit"><Guarded type="submit" need={NEED} busy={usage.loading}>Refresh</Guarded></div>
      </form>
      {!can(...NEED) ? <p class="muted" role="note">{LACKS}</p> : (
        <>
          <ErrorNote message={usage.error} />
          {usage.loading && <Loading what={`Loading ${what}`} />}
          {usage.data && <UsageChart points={usage.data.points} granularity={range.granularity} title={title} />}
        </>
      )}
    </div>
  );
}

/** A key's verifications over time by outcome, for the key page. */
export function KeyUsage({ keyId }: { keyId: string }) {
  return <UsageCard filter={{ keyId }} title="Usage of this key" what="the key's verifications" />;
}
