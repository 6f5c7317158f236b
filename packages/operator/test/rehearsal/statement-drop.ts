import { SimulatedTranscriber } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  Rehearsal,
  type RehearsalReport,
  type RehearsedWorkflow,
  runUpTo,
  type StatementRef,
} from "../../src/rehearsal/rehearsal";
import { evaluateStage } from "../../src/rehearsal/stage-evaluation";
import type { StagePlan } from "../../src/rehearsal/stage-plan";

/**
 * Statements of the deployed policies that no successful run of the rehearsal exercises, each with
 * why it is granted anyway. Any other statement that goes unexercised fails the test: a grant
 * nothing needs is taken away, or given a reason here.
 */
const EXEMPT: Array<{ role: RegExp; policy: string; actions: string[]; reason: string }> = [
  {
    role: /StateMachineRole$/,
    policy: "deliver-execution-logs",
    actions: ["logs:CreateLogDelivery"],
    reason:
      "CloudWatch Logs delivery is set up by Step Functions when the state machine is created or updated with logging, not during an execution",
  },
  {
    role: /^LineageIndexCompactorRole$/,
    policy: "inline",
    actions: ["s3:ListBucketVersions"],
    reason:
      "vacuumIndex deletes an unnamed index file or an old manifest for good (it lists the key's versions, deletes each by id, then deletes the key) only once it is an hour old; no rehearsal lasts that long (test/stacks/permissions.test.ts runs that vacuum with no grace). Its plain DeleteObject is exercised: the compactor deletes the notes of the jobs it indexed",
  },
  {
    role: /^VoicemailBatchStateMachineRole$/,
    policy: "run-workflow",
    actions: ["events:PutTargets", "events:PutRule", "events:DescribeRule"],
    reason:
      "startExecution.sync:2 creates its managed rule StepFunctionsGetEventsForStepFunctionsExecutionRule once per account and region; no single execution is guaranteed to create it",
  },
];

const key = (s: StatementRef) => `${s.role} ${s.policy} #${s.index}`;

/** Every statement of every role the stage deploys (functions, state machines, rules, schedules). */
function statementsOf(plan: StagePlan) {
  return plan.functions
    .map((f) => f.role)
    .concat(
      plan.stateMachines.map((m) => m.role),
      plan.rules.map((r) => r.role),
      plan.schedules.map((s) => s.role),
    )
    .flatMap((role) =>
      role.policies.flatMap((policy) =>
        policy.document.Statement.map((statement, i) => ({
          ref: { role: role.logicalName, policy: policy.name, index: i + 1 },
          actions: [statement.Action].flat() as string[],
          /**
           * The statement with what names the stage left out: its bucket, its stage, the mocks' ids,
           * its KMS key's id (the mocks' or the one the rehearsal's KMS assigned).
           */
          shape: `${role.logicalName} ${policy.name} ${JSON.stringify(statement)
            .replaceAll(plan.bucket, "<bucket>")
            .replaceAll(`-${plan.stage}-`, "-<stage>-")
            .replace(/(Function)-[a-z]{8}\b/g, "$1-<id>")
            .replace(/(:kms:[^:]*:[^:]*:key\/)[^"]+/g, "$1<id>")}`,
        })),
      ),
    );
}

/**
 * Takes each statement of `stage`'s deployed policies away in turn and checks that the rehearsal
 * then fails, naming the role, the action and the resource. Each statement is taken away from the
 * shortest run that reaches the workflow first needing it ({@link runUpTo}), once that run is shown
 * to succeed with every statement in place. `only: "not-in-dev"`: only the statements dev does not
 * deploy (the others being dev's own, for its bucket and names).
 */
export function describeStatementDrop({ stage, only }: { stage: string; only?: "not-in-dev" }): void {
  describe(`the deployed permissions of ${stage}, each statement taken away in turn`, () => {
    let rehearsal: Rehearsal;
    let baseline: RehearsalReport;
    /** The shapes of dev's statements, when only the others are taken away. */
    let devShapes: Set<string> | undefined;
    beforeAll(async () => {
      if (only === "not-in-dev") {
        devShapes = new Set(statementsOf(await evaluateStage("dev")).map((s) => s.shape));
      }
      rehearsal = await Rehearsal.start({
        plan: await evaluateStage(stage),
        motoEndpoint: inject("motoEndpoint"),
        // The subject is IAM, not what was heard: rehearsal.test.ts runs the real recogniser.
        transcriber: new SimulatedTranscriber(),
      });
      baseline = await rehearsal.run();
    }, 600_000);
    afterAll(async () => {
      await rehearsal?.close();
    });

    it("fails the rehearsal without any exercised statement, naming the function, action and resource", async () => {
      expect(baseline.ok).toBe(true);
      // Where each statement was first needed, from the successful run.
      const firstUse = new Map<string, { statement: StatementRef; workflow: RehearsedWorkflow }>();
      for (const call of baseline.calls) {
        for (const decision of call.decisions) {
          if (!decision.statement || ["bucket policy", "key policy"].includes(decision.statement.policy))
            continue;
          const statement = { role: decision.role, ...decision.statement };
          if (!firstUse.has(key(statement)))
            firstUse.set(key(statement), { statement, workflow: call.workflow as RehearsedWorkflow });
        }
      }
      const all = statementsOf(rehearsal.plan).filter((s) => !devShapes?.has(s.shape));
      const selected = new Set(all.map(({ ref }) => key(ref)));
      const unexercised = all.filter(({ ref }) => !firstUse.has(key(ref)));
      const withoutReason = unexercised.filter(
        ({ ref, actions }) =>
          !EXEMPT.some(
            (e) =>
              e.role.test(ref.role) && e.policy === ref.policy && e.actions.every((a) => actions.includes(a)),
          ),
      );

      // Each shortest run succeeds with every statement in place: a failure below is the missing
      // statement's, not a missing prerequisite's.
      const reached = new Set(
        [...firstUse.values()].filter(({ statement }) => selected.has(key(statement))).map((f) => f.workflow),
      );
      for (const workflow of reached) {
        const control = await rehearsal.run(runUpTo(workflow));
        expect(control.runs.filter((run) => !run.ok).map((run) => `${run.workflow}: ${run.outcome}`)).toEqual(
          [],
        );
      }

      const notFailing: string[] = [];
      const notNamed: string[] = [];
      for (const { statement, workflow } of firstUse.values()) {
        if (!selected.has(key(statement))) continue;
        const restore = rehearsal.withoutStatement(statement);
        let report: RehearsalReport;
        try {
          report = await rehearsal.run(runUpTo(workflow));
        } finally {
          restore();
        }
        const refused = report.calls.flatMap((call) =>
          call.decisions.filter((d) => !d.allowed).map((d) => ({ principal: call.principal, ...d })),
        );
        if (report.ok) notFailing.push(key(statement));
        // The refusal names the role (so the function or state machine), the action and the resource:
        // an ARN, or `*` with the request's condition keys for an action that takes no resource type
        // (StartTranscriptionJob: the output bucket and key).
        const named = refused.find(
          (d) =>
            d.role === statement.role &&
            (d.resource.startsWith("arn:aws:") || (d.resource === "*" && Object.keys(d.context).length > 0)),
        );
        if (!named) notNamed.push(key(statement));
      }
      expect(withoutReason.map(({ ref, actions }) => `${key(ref)} (${actions.join(", ")})`)).toEqual([]);
      expect(notFailing).toEqual([]);
      expect(notNamed).toEqual([]);
      if (only === "not-in-dev") {
        // Production's own: StartTranscriptionJob, the output document's write and read, the poll;
        // and the retention each function's lineage writes carry in its Object-Locked bucket (the
        // ten functions' records, and the lineage signer's digests).
        const actions = all.flatMap((s) => s.actions);
        expect(actions.filter((action) => action !== "s3:PutObjectRetention").sort()).toEqual([
          "s3:GetObject",
          "s3:PutObject",
          "transcribe:GetTranscriptionJob",
          "transcribe:StartTranscriptionJob",
        ]);
        expect(actions.filter((action) => action === "s3:PutObjectRetention")).toHaveLength(10);
      } else expect(firstUse.size).toBeGreaterThan(30);
    }, 3_600_000);
  });
}
