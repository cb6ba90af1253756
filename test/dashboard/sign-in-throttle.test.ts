import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_THROTTLE } from "../../src/dashboard/handler.js";
import { createLogger } from "../../src/observability/logger.js";
import { manualClock, startKeyward, type RunningKeyward } from "../support/keyward.js";

let keyward: RunningKeyward;
const clock = manualClock(Date.UTC(2030, 0, 1));
const lines: string[] = [];
/** The one trusted proxy (KEYWARD_TRUSTED_PROXIES): every other loopback address is a client of its own. */
const PROXY = "127.0.0.10";

beforeAll(async () => {
  const { logger } = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
  keyward = await startKeyward({ clock, logger, trustedProxies: PROXY });
});
afterAll(() => keyward?.stop());

interface Answer {
  status: number;
  retryAfter: string | undefined;
  setCookie: string[] | undefined;
  body: { error?: { code: string; message: string }; workspaceId?: string };
}

/**
 * POST /dashboard/api/sign-in from the loopback address `from` (all of 127.0.0.0/8 is local on Linux, so each test
 * can be its own client). `body` replaces the JSON `{rootKey}`; `csrf: false` leaves the CSRF header out; `headers`
 * are sent too.
 */
function signIn(from: string, rootKey: string, options: { body?: string; csrf?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
  const payload = options.body ?? JSON.stringify({ rootKey });
  return new Promise((resolve, reject) => {
    const req = request(`${keyward.baseUrl}/dashboard/api/sign-in`, {
      method: "POST",
      localAddress: from,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(payload),
        ...(options.csrf !== false && { "x-keyward-csrf": "sign-in" }),
        ...options.headers,
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({
        status: res.statusCode!,
        retryAfter: res.headers["retry-after"],
        setCookie: res.headers["set-cookie"],
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
      }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

const wrongKey = (i: number) => `kw_wrong_${String(i).padStart(4, "0")}_abcdefghij`;
const WRONG = { status: 401, body: { error: { code: "unauthenticated", message: "The root key is unknown or revoked." } } };
const throttled = (seconds: number) => ({
  status: 429,
  retryAfter: String(seconds),
  setCookie: undefined,
  body: { error: { code: "rate_limited", message: `Too many failed sign-in attempts from this address; try again in ${seconds} s.` } },
});
const LOCKOUT_S = SIGN_IN_THROTTLE.lockoutMs / 1000;
const N = SIGN_IN_THROTTLE.maxFailures;

/** `N` wrong keys from `from` (with `headers`), each refused as wrong: the client is locked out afterwards. */
async function lockOut(from: string, headers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < N; i++) expect(await signIn(from, wrongKey(i), { headers })).toMatchObject(WRONG);
}

describe("dashboard sign-in throttling", () => {
  it("200 wrong root keys in a row from one address: the first 5 are refused as wrong, the other 195 answer 429 with Retry-After, logging nothing above info", async () => {
    lines.length = 0;
    const answers: Answer[] = [];
    for (let i = 0; i < 200; i++) answers.push(await signIn("127.0.0.1", wrongKey(i)));
    expect(N).toBe(5);
    expect(answers.slice(0, N).map((a) => a.status)).toEqual(Array(N).fill(401));
    for (const answer of answers.slice(0, N)) expect(answer).toMatchObject(WRONG);
    for (const answer of answers.slice(N)) expect(answer).toEqual(throttled(LOCKOUT_S));
    expect(lines.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 40)).toEqual([]);
  });

  it("a concurrent burst of 200 from one address still lets exactly 5 keys be tried", async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => signIn("127.0.0.5", wrongKey(i))));
    const statuses = answers.map((a) => a.status);
    expect([statuses.filter((s) => s === 401).length, statuses.filter((s) => s === 429).length]).toEqual([N, 200 - N]);
    for (const answer of answers.filter((a) => a.status === 429)) expect(answer).toEqual(throttled(LOCKOUT_S));
  });

  it("the right root key from a locked-out address is refused too, until the lockout has passed", async () => {
    await lockOut("127.0.0.6");
    expect(await signIn("127.0.0.6", keyward.rootKey)).toEqual(throttled(LOCKOUT_S));
    clock.advance(SIGN_IN_THROTTLE.lockoutMs - 1_500);
    expect(await signIn("127.0.0.6", keyward.rootKey)).toEqual(throttled(2));
    clock.advance(1_500);
    const after = await signIn("127.0.0.6", keyward.rootKey);
    expect([after.status, after.body.workspaceId, after.setCookie?.[0]]).toEqual([200, keyward.workspaceId, expect.stringMatching(/^kw_dashboard_session=/)]);
  });

  it("another address is unaffected by a locked-out one", async () => {
    await lockOut("127.0.0.3");
    expect((await signIn("127.0.0.3", keyward.rootKey)).status).toBe(429);
    expect(await signIn("127.0.0.2", wrongKey(0))).toMatchObject(WRONG);
    const other = await signIn("127.0.0.2", keyward.rootKey);
    expect([other.status, other.body.workspaceId]).toEqual([200, keyward.workspaceId]);
  });

  it("a successful sign-in clears the address's failures", async () => {
    for (let i = 0; i < N - 1; i++) expect(await signIn("127.0.0.4", wrongKey(i))).toMatchObject(WRONG);
    expect((await signIn("127.0.0.4", keyward.rootKey)).status).toBe(200);
    await lockOut("127.0.0.4");
    expect(await signIn("127.0.0.4", wrongKey(99))).toEqual(throttled(LOCKOUT_S));
  });

  it("requests that try no key do not count; a malformed key does", async () => {
    for (let i = 0; i < 10; i++) {
      expect(await signIn("127.0.0.7", "", { body: "{}" })).toMatchObject({ status: 400, body: { error: { code: "invalid" } } });
      expect(await signIn("127.0.0.7", wrongKey(i), { csrf: false })).toMatchObject({ status: 403 });
    }
    expect(await signIn("127.0.0.7", "not a key")).toMatchObject({ status: 401, body: { error: { message: "The root key is malformed." } } });
    for (let i = 1; i < N; i++) expect(await signIn("127.0.0.7", wrongKey(i))).toMatchObject(WRONG);
    expect(await signIn("127.0.0.7", keyward.rootKey)).toEqual(throttled(LOCKOUT_S));
  });

  it("behind the trusted proxy, each client it forwards is throttled on its own", async () => {
    const client = (address: string) => ({ "x-forwarded-for": address });
    await lockOut(PROXY, client("203.0.113.1"));
    expect(await signIn(PROXY, keyward.rootKey, { headers: client("203.0.113.1") })).toEqual(throttled(LOCKOUT_S));
    expect(await signIn(PROXY, keyward.rootKey, { headers: { forwarded: "for=203.0.113.1" } })).toEqual(throttled(LOCKOUT_S));
    expect(await signIn(PROXY, wrongKey(0), { headers: client("203.0.113.2") })).toMatchObject(WRONG);
    const other = await signIn(PROXY, keyward.rootKey, { headers: client("203.0.113.2") });
    expect([other.status, other.body.workspaceId]).toEqual([200, keyward.workspaceId]);
  });

  it("a client that is not a trusted proxy cannot leave its lockout by claiming another address", async () => {
    await lockOut("127.0.0.8");
    for (const headers of [{ "x-forwarded-for": "203.0.113.50" }, { forwarded: "for=203.0.113.51" }] as Record<string, string>[]) {
      expect(await signIn("127.0.0.8", keyward.rootKey, { headers })).toEqual(throttled(LOCKOUT_S));
    }
  });
});
