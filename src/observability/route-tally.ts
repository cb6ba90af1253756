import type { DescMethod } from "@bufbuild/protobuf";

/**
 * The transports requests are counted by; `http` is a request that matched no REST namespace (an unknown path).
 * The dashboard's own traffic is kept apart from real clients': `dashboard` is its API calls (Connect, RPC codes),
 * `dashboard-http` its page, assets and session endpoints (HTTP statuses).
 */
export type TransportName = "rest-v1" | "rest-v2" | "grpc" | "grpc-web" | "connect" | "http" | "dashboard" | "dashboard-http";

export const TRANSPORTS: readonly TransportName[] = ["rest-v1", "rest-v2", "grpc", "grpc-web", "connect", "http", "dashboard", "dashboard-http"];

/** Transports whose statuses are RPC codes rather than HTTP statuses. */
export const RPC_TRANSPORTS: ReadonlySet<TransportName> = new Set<TransportName>(["grpc", "grpc-web", "connect", "dashboard"]);

/** Upper bounds (seconds) of the latency buckets: 100 µs to 5 s, the range a verification or a management call spans. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Label of every request whose path names no operation: one label, so unknown paths cannot grow the series. */
export const UNKNOWN_ROUTE = "unknown";

/**
 * Plain numbers for one latency histogram. Observing is a short loop and two additions, no allocation: this runs on
 * every request, and prom-client only reads it when /metrics is scraped.
 */
export class Histogram {
  /** Non-cumulative count per bucket; the last slot is +Inf. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i++;
    this.buckets[i] += 1;
    this.sum += seconds;
    this.count += 1;
  }
}

/** Requests of one route on one transport: counts by status, and one latency histogram. */
export class RouteTally {
  /** HTTP status for REST, the numeric gRPC/Connect code for the RPC protocols. */
  readonly statuses = new Map<number, number>();
  readonly latency = new Histogram();
  /** Whether statuses are RPC codes (grpc, grpc-web, connect) rather than HTTP statuses. */
  readonly rpc: boolean;
  /** `"transport":…,"route":…` as a request line writes them: the same on every line of this tally, so made once. */
  readonly lineFields: string;
  /** A request line's bytes after its id, by status: made by the request observer on first use (bounded, as statuses are). */
  readonly lineFieldsByStatus = new Map<number, Uint8Array>();

  constructor(readonly transport: TransportName, readonly route: string) {
    this.rpc = RPC_TRANSPORTS.has(transport);
    this.lineFields = `"transport":${JSON.stringify(transport)},"route":${JSON.stringify(route)}`;
  }

  record(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.latency.observe(seconds);
  }
}

/** The route label of an RPC: `KeysService.VerifyKey`, the same whichever transport carried it. */
export function routeName(method: DescMethod): string {
  return `${method.parent.name}.${method.name}`;
}

/**
 * Every (transport, route) tally, made on first use and found again by the method descriptor (a Map keyed by object:
 * no string building per request). Routes are the registered RPCs plus one `unknown`, so the set stays bounded.
 */
export class RequestTallies {
  private readonly byTransport = new Map<TransportName, Map<DescMethod | undefined, RouteTally>>(
    TRANSPORTS.map((t) => [t, new Map()]),
  );

  /** The tally of `method` on `transport`; `undefined` is the unknown route. */
  of(transport: TransportName, method: DescMethod | undefined): RouteTally {
    const routes = this.byTransport.get(transport) as Map<DescMethod | undefined, RouteTally>;
    let tally = routes.get(method);
    if (!tally) {
      tally = new RouteTally(transport, method ? routeName(method) : UNKNOWN_ROUTE);
      routes.set(method, tally);
    }
    return tally;
  }

  private readonly named = new Map<string, RouteTally>();

  /** The tally of a route that is no RPC (the dashboard's page and endpoints); callers pass a fixed set of names. */
  ofRoute(transport: TransportName, route: string): RouteTally {
    const id = `${transport} ${route}`;
    let tally = this.named.get(id);
    if (!tally) this.named.set(id, (tally = new RouteTally(transport, route)));
    return tally;
  }

  all(): RouteTally[] {
    return [...[...this.byTransport.values()].flatMap((routes) => [...routes.values()]), ...this.named.values()];
  }
}
