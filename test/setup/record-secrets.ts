/**
 * vitest setupFile: every fetch a test makes (its own, restClient's, the Unkey SDKs') has its bearer token, JSON
 * request body and JSON answer scanned for secrets, which are recorded for the end-of-run log check
 * (test/setup/log-capture.ts). The answer is read from a clone, so the test still reads the body itself.
 */
import { recordAuthorization, recordSecretsInJson, testLogDir } from "../support/secret-record.js";

const RECORDING = Symbol.for("keyward.test.recordingFetch");
const original = globalThis.fetch as typeof fetch & { [RECORDING]?: true };

if (testLogDir() && !original[RECORDING]) {
  const recording = async function recordingFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    recordAuthorization(new Headers(init?.headers ?? request?.headers).get("authorization"));
    if (typeof init?.body === "string") recordSecretsInJson(init.body);
    const response = await original(input, init);
    if ((response.headers.get("content-type") ?? "").includes("json")) {
      recordSecretsInJson(await response.clone().text().catch(() => ""));
    }
    return response;
  };
  globalThis.fetch = Object.assign(recording, { [RECORDING]: true as const });
}
