import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKeyward, type RunningKeyward } from "../support/keyward.js";
import { parseMetrics, series } from "../support/prometheus.js";
import { restClient } from "../support/rest.js";

const TOKEN = "metrics_token_for_tests_0123456789";

describe("GET /metrics, open (the default)", () => {
  let keyward: RunningKeyward;
  beforeAll(async () => void (keyward = await startKeyward()));
  afterAll(() => keyward?.stop());

  it("answers the Prometheus text format with Keyward's and the process's metrics", async () => {
    const response = await fetch(`${keyward.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    for (const name of ["keyward_requests_total", "keyward_request_duration_seconds", "keyward_verifications_total",
      "keyward_store_operation_duration_seconds", "keyward_cache_hits_total", "keyward_buffer_size"]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    const metrics = parseMetrics(text);
    // CPU is counted from when this app's registry was made: a fresh app can be scraped before a tick of it shows.
    expect(metrics.get("process_cpu_user_seconds_total")).toBeGreaterThanOrEqual(0);
    expect(metrics.get("process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(metrics.has(series("keyward_buffer_size", { buffer: "verification_events" }))).toBe(true);
  });

  it("does not count its own scrapes", async () => {
    await fetch(`${keyward.baseUrl}/metrics`);
    const text = await (await fetch(`${keyward.baseUrl}/metrics`)).text();
    expect(text).not.toContain('route="metrics"');
    expect(text).not.toMatch(/keyward_requests_total\{[^}]*transport="http"/);
  });

  it("is not reachable through the REST namespaces: /v1/metrics and /v2/metrics are unknown routes", async () => {
    const rest = restClient(keyward.baseUrl);
    const v2 = await rest.raw("/v2/metrics");
    expect(v2.status).toBe(404);
    expect(v2.body.error.detail).toBe("No route GET /v2/metrics.");
    const v1 = await rest.raw("/v1/metrics");
    expect(v1.status).toBe(404);
    expect(v1.body.error.code).toBe("NOT_FOUND");
  });

  it("answers 405 to anything but GET and HEAD", async () => {
    const response = await fetch(`${keyward.baseUrl}/metrics`, { method: "POST", body: "{}" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
    const head = await fetch(`${keyward.baseUrl}/metrics`, { method: "HEAD" });
    expect(head.status).toBe(200);
  });
});

describe("GET /metrics with KEYWARD_METRICS_TOKEN", () => {
  let keyward: RunningKeyward;
  beforeAll(async () => void (keyward = await startKeyward({ metricsAccess: { mode: "token", token: TOKEN } })));
  afterAll(() => keyward?.stop());

  it("answers 401 without the token or with another, and never echoes what was sent", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong_token_0123456789abcdef" }, { authorization: `Bearer ${keyward.rootKey}` }];
    for (const headers of attempts) {
      const response = await fetch(`${keyward.baseUrl}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await response.text()).toBe("GET /metrics needs Authorization: Bearer <KEYWARD_METRICS_TOKEN>.\n");
    }
  });

  it("serves the metrics with the token", async () => {
    const response = await fetch(`${keyward.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("# TYPE keyward_requests_total counter");
  });
});

describe("GET /metrics with KEYWARD_METRICS=off", () => {
  let keyward: RunningKeyward;
  beforeAll(async () => void (keyward = await startKeyward({ metricsAccess: { mode: "off" } })));
  afterAll(() => keyward?.stop());

  it("answers as any unknown path does", async () => {
    const response = await restClient(keyward.baseUrl).raw("/metrics");
    expect(response.status).toBe(404);
    expect(response.body.error.detail).toBe("No route GET /metrics.");
  });
});
