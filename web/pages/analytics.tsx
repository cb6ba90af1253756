import { useState } from "preact/hooks";
import { api, can } from "../api.js";
import { RangePicker, UsageChart } from "../chart.js";
import { ErrorNote, Guarded, Loading, Page, useAsync } from "../ui.js";
import { fillBuckets, OUTCOMES, rangeBounds, type Granularity, type RangeId } from "../usage.js";

const NEED: [string, string] = ["api", "read_analytics"];
const LACKS = "Your root key lacks api.*.read_analytics, so there is nothing to show here.";

interface Filter {
  keyIds?: string[];
  tags?: string[];
  tagsMatch?: "any" | "all";
}

/**
 * Verifications over time by outcome for `filter`, bucketed by `granularity`; `refreshed` reloads (a new range
 * ends with the bucket holding the current time). Nothing is asked when the session may not read analytics.
 */
function useUsage(filter: Filter, range: RangeId, granularity: Granularity, refreshed: number) {
  const allowed = can(...NEED);
  return useAsync(async () => {
    if (!allowed) return undefined;
    const { start, end } = rangeBounds(range, granularity, Date.now());
    const answer = await api.analytics.getVerifications({
      start: BigInt(start), end: BigInt(end), granularity, keyIds: filter.keyIds, tags: filter.tags, tagsMatch: filter.tags?.length ? filter.tagsMatch : undefined,
    });
    return { points: fillBuckets(answer.data, granularity, start, end, OUTCOMES), start, end };
  }, [JSON.stringify(filter), range, granularity, refreshed, allowed]);
}

/** The keys with the most verifications in the range (grouped by key, ordered by total). */
function TopKeys({ filter, range, granularity, refreshed }: { filter: Filter; range: RangeId; granularity: Granularity; refreshed: number }) {
  const top = useAsync(async () => {
    const { start, end } = rangeBounds(range, granularity, Date.now());
    // Month buckets keep the rows few (a range spans at most 13 months); the sums per key make them one.
    const answer = await api.analytics.getVerifications({
      start: BigInt(start), end: BigInt(end), granularity: "month", groupBy: ["key"], order: "total_desc", limit: 10_000,
      tags: filter.tags, tagsMatch: filter.tags?.length ? filter.tagsMatch : undefined,
    });
    const sums = new Map<string, { total: number; valid: number }>();
    for (const row of answer.data) {
      const sum = sums.get(row.keyId ?? "") ?? { total: 0, valid: 0 };
      sum.total += Number(row.total);
      sum.valid += Number(row.valid);
      sums.set(row.keyId ?? "", sum);
    }
    return [...sums].sort((a, b) => b[1].total - a[1].total || a[0].localeCompare(b[0])).slice(0, 10);
  }, [JSON.stringify(filter), range, granularity, refreshed]);
  return (
    <div class="card">
      <h2>Top keys</h2>
      <ErrorNote message={top.error} />
      {top.loading && <Loading what="Loading the top keys" />}
      {top.data && (top.data.length === 0 ? <p class="muted">No verifications in this range.</p> : (
        <div class="table-wrap">
          <table aria-label="Top keys">
            <thead><tr><th>Key</th><th>Verifications</th><th>Valid</th></tr></thead>
            <tbody>
              {top.data.map(([keyId, sum]) => (
                <tr key={keyId}><td data-label="Key"><a class="mono" href={`#/keys/${keyId}`}>{keyId}</a></td>
                  <td data-label="Verifications">{sum.total}</td><td data-label="Valid">{sum.valid}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}

function parseTags(text: string): string[] {
  return [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];
}

export function AnalyticsPage() {
  const [range, setRange] = useState<{ id: RangeId; granularity: Granularity }>({ id: "24h", granularity: "hour" });
  const [tagsText, setTagsText] = useState("");
  const [match, setMatch] = useState<"any" | "all">("any");
  const [filter, setFilter] = useState<Filter>({});
  const [refreshed, setRefreshed] = useState(0);
  const usage = useUsage(filter, range.id, range.granularity, refreshed);
  const apply = (e: Event) => {
    e.preventDefault();
    const tags = parseTags(tagsText);
    setFilter(tags.length ? { tags, tagsMatch: match } : {});
    setRefreshed((n) => n + 1);
  };
  return (
    <Page title="Verification analytics" intro="Verifications of every key of the workspace, by outcome, in UTC. New verifications show up within about a second.">
      <form class="card filters" onSubmit={apply} aria-label="Analytics filters">
        <RangePicker range={range.id} granularity={range.granularity} onChange={(id, granularity) => setRange({ id, granularity })} />
        <label>Tags <input value={tagsText} placeholder="e.g. path=/v1/orders, region=eu" maxLength={1300}
          onInput={(e) => setTagsText((e.target as HTMLInputElement).value)} /></label>
        <label>Tags match
          <select value={match} onChange={(e) => setMatch((e.target as HTMLSelectElement).value as "any" | "all")}>
            <option value="any">any of them</option>
            <option value="all">all of them</option>
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
            {usage.data && <UsageChart points={usage.data.points} granularity={range.granularity} title="Verifications over time" />}
          </div>
          <TopKeys filter={filter} range={range.id} granularity={range.granularity} refreshed={refreshed} />
        </>
      )}
    </Page>
  );
}

/** A key's verifications over time by outcome, for the key page. */
export function KeyUsage({ keyId }: { keyId: string }) {
  const [range, setRange] = useState<{ id: RangeId; granularity: Granularity }>({ id: "24h", granularity: "hour" });
  const [refreshed, setRefreshed] = useState(0);
  const usage = useUsage({ keyIds: [keyId] }, range.id, range.granularity, refreshed);
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
          {usage.loading && <Loading what="Loading the key's verifications" />}
          {usage.data && <UsageChart points={usage.data.points} granularity={range.granularity} title="Usage of this key" />}
        </>
      )}
    </div>
  );
}
