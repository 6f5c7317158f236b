import { OrganizationsClient } from "@aws-sdk/client-organizations";
import { afterEach, describe, expect, it } from "vitest";
import { checkAiServicesOptOut } from "../../src/doctor/checks/ai-services-opt-out";
import type { Finding } from "../../src/doctor/findings";
import { type AwsStandIn, ORGANIZATIONS_ERRORS, type StandInAccount, startAwsStandIn } from "./aws-stand-in";

/** The policy AWS documents for opting one service out, as written (`@@assign`). */
const WRITTEN = { services: { transcribe: { opt_out_policy: { "@@assign": "optOut" } } } };

let standIn: AwsStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

/** The check, with the real Organizations client pointed at a stand-in answering as `account` says. */
async function check(account: Omit<StandInAccount, "region">, region = "eu-west-1"): Promise<Finding> {
  standIn = await startAwsStandIn({ region, ...account });
  const organizations = new OrganizationsClient({
    endpoint: standIn.url,
    region,
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
    maxAttempts: 1,
  });
  const findings = await checkAiServicesOptOut(organizations);
  expect(findings).toHaveLength(1);
  return findings[0]!;
}

describe("checkAiServicesOptOut against an Organizations stand-in", () => {
  it("asks DescribeEffectivePolicy for the caller's own account, signed for organizations", async () => {
    const finding = await check({ aiOptOutPolicy: WRITTEN });
    expect(finding.check).toBe("ai-opt-out");
    expect(finding.subject).toBe("transcribe");
    expect(standIn!.requests).toHaveLength(1);
    const [request] = standIn!.requests;
    expect(request).toMatchObject({
      method: "POST",
      path: "/",
      target: "AWSOrganizationsV20161128.DescribeEffectivePolicy",
      signingService: "organizations",
    });
    // No TargetId: the caller's account, which a member account may ask about.
    expect(JSON.parse(request!.body)).toEqual({ PolicyType: "AISERVICES_OPT_OUT_POLICY" });
  });

  it("passes an account opted out by the transcribe entry, in either value form", async () => {
    const written = await check({ aiOptOutPolicy: WRITTEN });
    expect(written).toMatchObject({ status: "ok" });
    expect(written.message).toBe(
      "this account's effective AI services opt-out policy opts it out of transcribe by its transcribe entry",
    );
    await standIn!.close();
    // The effective (resolved) form AWS shows: the value itself, no @@assign.
    const resolved = await check({
      aiOptOutPolicy:
        '{"services":{"comprehend":{"opt_out_policy":"optIn"},"transcribe":{"opt_out_policy":"optOut"}}}',
    });
    expect(resolved).toEqual(written);
  });

  it("passes an account opted out by default, in either value form", async () => {
    for (const value of ["optOut", { "@@assign": "optOut" }]) {
      const finding = await check({
        aiOptOutPolicy: {
          services: { default: { opt_out_policy: value }, lex: { opt_out_policy: "optIn" } },
        },
      });
      expect(finding.status).toBe("ok");
      expect(finding.message).toBe(
        "this account's effective AI services opt-out policy opts it out of transcribe by its default entry (it has no transcribe entry)",
      );
      await standIn!.close();
      standIn = undefined;
    }
  });

  it("reports transcribe opted in by its own entry over a default that opts out", async () => {
    for (const [optIn, optOut] of [
      ["optIn", "optOut"],
      [{ "@@assign": "optIn" }, { "@@assign": "optOut" }],
    ]) {
      const finding = await check({
        aiOptOutPolicy: {
          services: { default: { opt_out_policy: optOut }, transcribe: { opt_out_policy: optIn } },
        },
      });
      expect(finding.status).toBe("missing");
      expect(finding.message).toContain(
        "this account's effective AI services opt-out policy sets transcribe to optIn, not optOut, by its transcribe entry, which wins over default (optOut):",
      );
      expect(finding.message).toContain(
        "Amazon Transcribe, which may store and use it for service improvement",
      );
      expect(finding.message).toContain(
        `change the AI services opt-out policy that sets it to optOut, or attach one such as ${JSON.stringify(WRITTEN)} closer to this account`,
      );
      await standIn!.close();
      standIn = undefined;
    }
  });

  it("reports a default that opts in, and a policy with neither a transcribe entry nor default", async () => {
    const optedIn = await check({ aiOptOutPolicy: { services: { default: { opt_out_policy: "optIn" } } } });
    expect(optedIn.status).toBe("missing");
    expect(optedIn.message).toContain(
      "sets transcribe to optIn, not optOut, by its default entry (it has no transcribe entry):",
    );
    await standIn!.close();
    const neither = await check({
      aiOptOutPolicy: { services: { rekognition: { opt_out_policy: "optOut" } } },
    });
    expect(neither.status).toBe("missing");
    expect(neither.message).toContain(
      "this account's effective AI services opt-out policy has no transcribe entry and no default:",
    );
    expect(neither.message).toContain(
      `in the organization's management account, create an AI services opt-out policy such as ${JSON.stringify(WRITTEN)} and attach it to this account or an OU above it`,
    );
  });

  it("reports no opt-out policy for the account (EffectivePolicyNotFoundException)", async () => {
    const finding = await check({});
    expect(finding.status).toBe("missing");
    expect(finding.message).toContain(
      `no AI services opt-out policy applies to this account (EffectivePolicyNotFoundException: ${ORGANIZATIONS_ERRORS.EffectivePolicyNotFoundException}):`,
    );
    expect(finding.message).toContain("create an AI services opt-out policy such as");
    expect(finding.message).toContain("enable the AI services opt-out policy type");
  });

  it("reports an account in no organization (AWSOrganizationsNotInUseException)", async () => {
    const finding = await check({ organizationsError: "AWSOrganizationsNotInUseException" });
    expect(finding.status).toBe("missing");
    expect(finding.message).toContain(
      "this account is in no AWS organization (AWSOrganizationsNotInUseException: Your account is not a member of an organization.):",
    );
    expect(finding.message).toContain(
      "AI services opt-out policies need AWS Organizations, and AWS Organizations is the documented way to opt out",
    );
    expect(finding.message).toContain("contact AWS Support to opt this account out of Amazon Transcribe");
  });

  it("leaves the check unchecked when DescribeEffectivePolicy is refused, naming the action", async () => {
    const finding = await check({ organizationsError: "AccessDeniedException" });
    expect(finding.status).toBe("unchecked");
    expect(finding.message).toBe(
      `could not read this account's effective AI services opt-out policy: AccessDeniedException: ${ORGANIZATIONS_ERRORS.AccessDeniedException}: let the identity running the doctor call organizations:DescribeEffectivePolicy`,
    );
  });

  it("leaves any other error, and content that is not JSON, unchecked", async () => {
    const throttled = await check({ organizationsError: "TooManyRequestsException" });
    expect(throttled.status).toBe("unchecked");
    expect(throttled.message).toContain(
      "could not read this account's effective AI services opt-out policy: TooManyRequestsException: You have sent too many requests",
    );
    await standIn!.close();
    const garbled = await check({ aiOptOutPolicy: "{services:" });
    expect(garbled.status).toBe("unchecked");
    expect(garbled.message).toMatch(
      /^could not read this account's effective AI services opt-out policy: SyntaxError: /,
    );
  });

  it("does not take a value in another case for optOut (AWS's values are case-sensitive)", async () => {
    const finding = await check({
      aiOptOutPolicy: { services: { transcribe: { opt_out_policy: "optout" } } },
    });
    expect(finding.status).toBe("missing");
    expect(finding.message).toContain("sets transcribe to optout, not optOut, by its transcribe entry:");
  });
});
