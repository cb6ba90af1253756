import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { committedDocument, documentValidator, operationsOf, validRequests, type DocumentedOperation } from "../support/openapi-schemas.js";
import { useKeyward, type Harness } from "../support/use-keyward.js";

/**
 * 400s a valid request may still get: rules across fields or against stored data, which the documented schema of a
 * single request cannot express. Any other 400 to a request built from the documented schema means the document
 * promises more than the server accepts.
 */
const BEYOND_SCHEMA: [route: RegExp, detail: RegExp][] = [
  [/keys\.updateKey/, /refill needs a credit balance/], // a refill for a key without a balance
  [/identities\.(create|update)Identity/, /refill needs a credit balance/], // shared credits: a refill without a balance
  [/keys\.(updateCredits|updateRemaining)/, /would take the balance past/], // the balance stays within 2^53
  [/keys\.(updateCredits|updateRemaining)/, /has unlimited credits/], // increment/decrement need a stored balance (Unkey: 400)
  [/keys\.verifyKey|keys\/verify/, /permission query is invalid/], // the query grammar
  [/keys\.(create|update)Key|\/v1\/keys$|identities\.|multiLimit/, /Two rate limits are named|repeats namespace .* with identifier/],
  [/\/v1\/(identities\.getIdentity|ratelimits\.(getOverride|listOverrides))/, /Name the identity|Name the namespace/], // GET: one of
  [/\/v1\/keys(\.verifyKey|\/verify)/, /has no rate limit named/], // a named limit the key does not have
  // The hash's format follows its variant (migrationId or hashVariant); hash and plaintext exclude each other.
  [/keys\.migrateKeys|keys\.enqueueMigration|\/v1\/migrations\./, /\.hash (must be|is required)|give hash or plaintext|Two rate limits are named/],
  [/analytics\.get(Verifications|Ratelimits)|keys\.getVerifications|auditLogs\.list/, /buckets; at most|must be after start|Send exactly one of keyId and ownerId|slices; at most|start cannot be equal or greater than end/], // range and granularity together; GET: one of
  [/webhooks\./, /The webhook is invalid/], // urls, event names from the catalogue, threshold levels
  [/\/v2\/analytics\.get(Verifications|Ratelimits)/, /not valid SQL|statements are not allowed|is not supported|is not queryable|names nothing in this workspace|one statement/], // SQL text a schema cannot describe
];

const RUNS_PER_OPERATION = 12;
const SEED = 20261125;

/** Deletions (and rerolls, which revoke the key) last, so the seeded resources serve the other operations first. */
const destroys = (operation: DocumentedOperation) => Number(/delete|reroll/i.test(operation.path));
const byDeletionLast = (a: DocumentedOperation, b: DocumentedOperation) => destroys(a) - destroys(b);

describe("REST answers conform to the OpenAPI documents", () => {
  // With an encryption key, so webhook endpoints (secrets stored encrypted) can be seeded and created.
  const harness = useKeyward({ encryptionKey: randomBytes(32) });

  for (const dialect of ["v2", "v1"] as const) {
    it(`every ${dialect} operation answers generated valid requests with a documented status and body`, async () => {
      const document = committedDocument(dialect);
      const validator = documentValidator(document, dialect);
      const hints = await seedResources(harness, dialect);
      const statuses = new Map<string, Set<number>>();
      for (const [index, operation] of operationsOf(document).sort(byDeletionLast).entries()) {
        const requests = validRequests(operation.request, validator, hints);
        const seen = new Set<number>();
        statuses.set(`${operation.verb} ${operation.path}`, seen);
        await fc.assert(fc.asyncProperty(requests, async (input) => {
          const { status, body, requestId } = await send(harness, operation, input);
          seen.add(status);
          const where = `${operation.verb} ${operation.path} ${JSON.stringify(input)} → ${status} ${JSON.stringify(body)}`;
          expect(operation.responses.has(status), `undocumented status: ${where}`).toBe(true);
          expect(validator.errors(operation.responses.get(status)!, body), where).toEqual([]);
          expect(requestId, where).toMatch(/^req_/);
          expect(status, `server error: ${where}`).not.toBe(500);
          if (status === 400) {
            const detail = String(body.error?.detail ?? body.error?.message);
            if (process.env.OPENAPI_DEBUG) console.log("400", operation.path, detail.slice(0, 150));
            const explained = BEYOND_SCHEMA.some(([route, rule]) => route.test(operation.path) && rule.test(detail));
            expect(explained, `a documented-valid request was refused: ${where}`).toBe(true);
          }
        }), { numRuns: RUNS_PER_OPERATION, seed: SEED + index, endOnFailure: true });
      }
      // The seeded ids make most operations succeed at least once: the schema of 200 is exercised, not only errors.
      if (process.env.OPENAPI_DEBUG) console.log(dialect, [...statuses].map(([op, seen]) => `${op} ${[...seen].sort().join(",")}`).join("\n"));
      const succeeded = [...statuses].filter(([, seen]) => seen.has(200)).length;
      expect(succeeded / statuses.size).toBeGreaterThan(0.8);
    });
  }
});

/** Live resources whose ids and names the generated requests prefer where the schema allows them. */
async function seedResources(harness: Harness, suffix: string): Promise<Record<string, unknown[] | null>> {
  const ok = async (op: string, body: unknown) => {
    const response = await harness.rest.v2(op, body, harness.keyward.rootKey);
    expect({ op, status: response.status }).toEqual({ op, status: 200 });
    return response.body.data;
  };
  const apiId = await harness.seed.api({ name: `openapi-${suffix}` });
  const externalId = `user_${suffix}`;
  const { identityId } = await ok("identities.createIdentity", { externalId, ratelimits: [{ name: "requests", limit: 100, duration: 60_000 }] });
  const slug = `docs.read_${suffix}`;
  const { permissionId } = await ok("permissions.createPermission", { name: slug, slug });
  const roleName = `docs_reader_${suffix}`;
  const { roleId } = await ok("permissions.createRole", { name: roleName, permissions: [slug] });
  const key = await harness.seed.key(apiId, {
    name: "seeded", externalId, roles: [roleName], permissions: [slug], credits: { remaining: 1000 },
    ratelimits: [{ name: "requests", limit: 1000, duration: 60_000 }],
  });
  const namespace = `docs_ns_${suffix}`;
  const identifier = "caller_1";
  await ok("ratelimit.limit", { namespace, identifier, limit: 100, duration: 60_000 }); // creates the namespace
  await ok("ratelimit.setOverride", { namespace, identifier, limit: 50, duration: 60_000 });
  const { webhookId } = await ok("webhooks.createWebhook", { url: "https://hooks.example.com/conformance", events: ["key.create"] });
  const { messageId } = await ok("webhooks.sendTest", { webhookId });
  return {
    apiId: [apiId], keyId: [key.keyId], key: [key.key],
    identity: [identityId, externalId], identityId: [identityId], externalId: [externalId], ownerId: [externalId],
    namespace: [namespace], namespaceName: [namespace], identifier: [identifier],
    permission: [slug, permissionId], permissionId: [permissionId], role: [roleName, roleId], roleId: [roleId],
    permissions: [[slug], ["api.*.read_api"], slug, { and: [slug] }], roles: [[roleName]],
    id: [permissionId, roleId], slug: [slug], // v1 assignment entries
    cursor: null, // only a cursor an earlier page returned is valid
    webhookId: [webhookId], messageId: [messageId], url: ["https://hooks.example.com/conformance"],
    events: [["key.create"], ["api.create", "key.credits.low"]], thresholds: [{ credits: [{ remaining: 5 }, { percent: 20 }] }],
  };
}

async function send(harness: Harness, operation: DocumentedOperation, input: unknown) {
  const headers: Record<string, string> = operation.public ? {} : { authorization: `Bearer ${harness.keyward.rootKey}` };
  let url = `${harness.keyward.baseUrl}${operation.path}`;
  const init: RequestInit = { method: operation.verb, headers };
  if (operation.verb === "GET") {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
      for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
    }
    if ([...params].length > 0) url += `?${params}`;
  } else {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(input);
  }
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json(), requestId: response.headers.get("x-request-id") };
}
