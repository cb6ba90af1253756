import { Unkey as UnkeyV1 } from "unkey-v1";
import { Unkey as UnkeyV2 } from "unkey-v2";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";

/**
 * Identity credits are a Keyward extension: Unkey's SDKs must keep parsing every answer that carries them. The v2 SDK
 * strips the unknown `identity.credits`; the v1 SDK passes it through. Identities are created over raw REST, since
 * the v2 SDK's request schema drops the field.
 */
describe("Unkey's SDKs against keys whose identity shares credits", () => {
  const harness = useKeyward();
  const v2 = () => new UnkeyV2({ rootKey: harness.keyward.rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });
  const v1 = () => new UnkeyV1({ rootKey: harness.keyward.rootKey, baseUrl: harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });

  it("v2 verifyKey and getIdentity, and v1 keys.verify and identities.get, parse; the identity's 2 credits run out for both", async () => {
    const created = await harness.rest.v2("identities.createIdentity", { externalId: "sdk_shared", credits: { remaining: 2 } }, harness.keyward.rootKey);
    expect(created.status).toBe(200);
    const identityId = created.body.data.identityId as string;
    const { apiId } = (await v2().apis.createApi({ name: "sdk-identity-credits" })).data;
    const key = (await v2().keys.createKey({ apiId, externalId: "sdk_shared", credits: { remaining: 10 } })).data.key;

    const first = await v2().keys.verifyKey({ key });
    expect(first.data).toMatchObject({ valid: true, code: "VALID", credits: 9, identity: { id: identityId, externalId: "sdk_shared" } });
    expect(first.data.identity).not.toHaveProperty("credits");
    expect((await v2().identities.getIdentity({ identity: identityId })).data).toEqual({ id: identityId, externalId: "sdk_shared", meta: {}, ratelimits: [] });

    const second = await v1().keys.verify({ key });
    expect(second.result).toMatchObject({ valid: true, code: "VALID", remaining: 8, identity: { id: identityId, externalId: "sdk_shared", credits: { remaining: 0 } } });
    expect((await v1().identities.get({ identityId })).result).toEqual({ id: identityId, externalId: "sdk_shared", meta: {}, ratelimits: [], credits: { remaining: 0 } });

    const refused = await v2().keys.verifyKey({ key });
    expect(refused.data).toMatchObject({ valid: false, code: "USAGE_EXCEEDED", credits: 8 });
    expect((await v1().keys.verify({ key })).result).toMatchObject({ valid: false, code: "USAGE_EXCEEDED", remaining: 8 });
  });
});
