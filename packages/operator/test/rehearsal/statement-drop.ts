import { FliteEngine, type FliteVoice } from "@voxtrail/local";
import { SimulatedTranscriber } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type GrantReplay, replayEachGrant, replayWith } from "../../src/rehearsal/necessity";
import {
  Rehearsal,
  type RehearsalReport,
  type RehearsedWorkflow,
  runUpTo,
  type StatementRef,
} from "../../src/rehearsal/rehearsal";
import { evaluateStage } from "../../src/rehearsal/stage-evaluation";
import { rolesOf, type StagePlan } from "../../src/rehearsal/stage-plan";

/**
 * Grants of the deployed policies that no successful run of the rehearsal needs, each with why it
 * is granted anyway: a statement no run exercises (named by actions it holds), an action of a
 * statement a run exercises, or (`resource`) a resource of one. Any other grant nothing needs fails
 * the test: it is taken away, given a rehearsal scenario that needs it, or given a reason here.
 */
const EXEMPT: Array<{ role: RegExp; policy: string; actions: string[]; resource?: RegExp; reason: string }> =
  [
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
      role: /^LineageIndexCompactorRole$/,
      policy: "inline",
      actions: ["s3:DeleteObjectVersion"],
      resource: /\/lineage-index\/\*$/,
      reason:
        "an index file's versions are deleted by id only by that hour-old vacuum (above); the symlinks' replaced versions, under lineage-athena/, are deleted by id in every run",
    },
    {
      role: /^(StageIngest|PromptPreparePrompts)Role$/,
      policy: "inline",
      actions: ["s3:GetObject"],
      resource: /\/incoming\/(voicemail|prompts)\/\*$/,
      reason:
        "Ingest and PreparePrompts read exactly the version their event names (s3:GetObjectVersion, exercised); the plain read, the current object while its etag is the event's, serves an event without a version-id, which a stage's versioned bucket never sends",
    },
    {
      role: /^(StageIngest|PromptPreparePrompts)Role$/,
      policy: "inline",
      actions: ["s3:GetObject"],
      resource: /\/lineage\/\*$/,
      reason:
        "an attempt reads the activity record it follows; the first stage of a job follows none but its own earlier attempt, and the rehearsal's attempts succeed the first time (every later stage's read of lineage/ is exercised)",
    },
    {
      role: /^LineageSignerRole$/,
      policy: "inline",
      actions: ["s3:GetObject"],
      resource: /\/lineage-digests\/\*$/,
      reason:
        "a digest reads the previous one to chain to it; each rehearsal creates the stage's signing key anew and signs once a run, so its digest is the key's first and names no previous one",
    },
  ];

/**
 * flite, speaking each distinct sentence once: every run says the same replies and prompts, and
 * each later request for a sentence gets a copy of its first WAV instead of a second synthesis.
 */
class FliteOncePerSentence {
  readonly #flite = new FliteEngine();
  readonly #spoken = new Map<string, Promise<Uint8Array>>();

  synthesizeWav(text: string, voice: FliteVoice = "slt"): Promise<Uint8Array> {
    const key = `${voice} ${text}`;
    let wav = this.#spoken.get(key);
    if (!wav) {
      wav = this.#flite.synthesizeWav(text, voice);
      this.#spoken.set(key, wav);
      // A failed synthesis is tried again by the next request, not remembered.
      wav.catch(() => this.#spoken.delete(key));
    }
    return wav.then((bytes) => bytes.slice());
  }
}

/** Actions the Service Authorization Reference lists no resource type or condition key for. */
const NO_RESOURCE_TYPE = ["states:SendTaskSuccess"];

const key = (s: StatementRef) => `${s.role} ${s.policy} #${s.index}`;

/** The exemptions of the statement `ref`'s role and policy. */
const exemptionsOf = (ref: StatementRef) =>
  EXEMPT.filter((e) => e.role.test(ref.role) && e.policy === ref.policy);

/** Whether an exemption covers the grant `g` of a statement holding `actions`. */
const grantExempted = (g: GrantReplay, actions: string[]) =>
  exemptionsOf(g.statement).some((e) =>
    g.kind === "action"
      ? !e.resource && e.actions.includes(g.value)
      : e.resource?.test(g.value) === true && e.actions.every((a) => actions.includes(a)),
  );

/** A grant as the failure lists it. */
const grantLine = (g: GrantReplay) => `${key(g.statement)} ${g.kind} ${g.value}`;

/** Every statement of every role the stage deploys (functions, state machines, rules, schedules). */
function statementsOf(plan: StagePlan) {
  return [...rolesOf(plan).values()].flatMap((role) =>
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
 * to succeed with every statement in place. Then each action and each resource of every exercised
 * statement: the successful run's requests, replayed without it ({@link replayEachGrant}), must
 * refuse one. `only: "not-in-dev"`: only the statements dev does not deploy (the others being
 * dev's own, for its bucket and names); dev also checks the issue's two mutations (the
 * ResultWriter's statement reduced to `s3:PutObject`, `states:StopExecution` taken away).
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
        // The subject is IAM, not what was heard or said: rehearsal.test.ts runs the real recogniser,
        // flite on every sentence and the definitions' real backoff. A retry is authorized as its
        // first attempt was: with a refused statement, a run fails the same, without the backoff.
        transcriber: new SimulatedTranscriber(),
        speechEngine: new FliteOncePerSentence(),
        retryIntervalMs: 1,
      });
      baseline = await rehearsal.run();
    }, 600_000);
    afterAll(async () => {
      await rehearsal?.close();
    });

    it("fails the rehearsal without any exercised statement, naming the function, action and resource", async () => {
      expect(baseline.ok).toBe(true);
      // Where each statement was first needed, from the successful run.
      // A workflow of undefined: asked as the run creates the state machines, before any workflow.
      const firstUse = new Map<
        string,
        { statement: StatementRef; workflow: RehearsedWorkflow | undefined }
      >();
      for (const call of baseline.calls) {
        for (const decision of call.decisions) {
          if (!decision.statement || ["bucket policy", "key policy"].includes(decision.statement.policy))
            continue;
          const statement = { role: decision.role, ...decision.statement };
          if (!firstUse.has(key(statement)))
            firstUse.set(key(statement), {
              statement,
              workflow: call.workflow as RehearsedWorkflow | undefined,
            });
        }
      }
      const all = statementsOf(rehearsal.plan).filter((s) => !devShapes?.has(s.shape));
      const selected = new Set(all.map(({ ref }) => key(ref)));
      const unexercised = all.filter(({ ref }) => !firstUse.has(key(ref)));
      const withoutReason = unexercised.filter(
        ({ ref, actions }) =>
          !exemptionsOf(ref).some((e) => !e.resource && e.actions.every((a) => actions.includes(a))),
      );

      // Each shortest run succeeds with every statement in place: a failure below is the missing
      // statement's, not a missing prerequisite's.
      const reached = new Set(
        [...firstUse.values()].filter(({ statement }) => selected.has(key(statement))).map((f) => f.workflow),
      );
      for (const workflow of reached) {
        const control = await rehearsal.run(workflow ? runUpTo(workflow) : []);
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
          report = await rehearsal.run(workflow ? runUpTo(workflow) : []);
        } finally {
          restore();
        }
        const refused = report.calls.flatMap((call) =>
          call.decisions.filter((d) => !d.allowed).map((d) => ({ principal: call.principal, ...d })),
        );
        if (report.ok) notFailing.push(key(statement));
        // The refusal names the role (so the function or state machine), the action and the resource:
        // an ARN, or `*` for an action that takes no resource type, with the request's condition
        // keys where it has them (StartTranscriptionJob: the output bucket and key; SendTaskSuccess
        // has none: its task token names the task).
        const named = refused.find(
          (d) =>
            d.role === statement.role &&
            (d.resource.startsWith("arn:aws:") ||
              (d.resource === "*" &&
                (Object.keys(d.context).length > 0 || NO_RESOURCE_TYPE.includes(d.action)))),
        );
        if (!named) notNamed.push(key(statement));
      }
      expect(withoutReason.map(({ ref, actions }) => `${key(ref)} (${actions.join(", ")})`)).toEqual([]);
      expect(notFailing).toEqual([]);
      expect(notNamed).toEqual([]);
      if (only === "not-in-dev") {
        // Production's own: StartTranscriptionJob with the data-access role it passes, the look at
        // the job, the workflow resumed; the Transcribe function's bucket statements (the output
        // read back, the task tokens left, read and probed for, no audio read); the data-access
        // role's media read and output write; and the retention each function's lineage writes
        // carry in its Object-Locked bucket (the ten functions' records, and the lineage signer's
        // digests).
        const actions = all.flatMap((s) => s.actions);
        expect(actions.filter((action) => action !== "s3:PutObjectRetention").sort()).toEqual([
          "iam:PassRole",
          "s3:GetObject",
          "s3:GetObject",
          "s3:ListBucket",
          "s3:PutObject",
          "s3:PutObject",
          "states:SendTaskSuccess",
          "transcribe:GetTranscriptionJob",
          "transcribe:StartTranscriptionJob",
        ]);
        expect(actions.filter((action) => action === "s3:PutObjectRetention")).toHaveLength(10);
      } else expect(firstUse.size).toBeGreaterThan(30);
    }, 3_600_000);

    it("needs each action and each resource of every exercised statement: the run's requests, replayed without it, are refused", async () => {
      expect(baseline.ok).toBe(true);
      const selected = new Map(
        statementsOf(rehearsal.plan)
          .filter((s) => !devShapes?.has(s.shape))
          .map(({ ref, actions }) => [key(ref), actions]),
      );
      const replays = (await replayEachGrant(rehearsal.plan, baseline.calls)).filter((g) =>
        selected.has(key(g.statement)),
      );
      const unneeded = replays.filter(
        (g) => g.refused.length === 0 && !grantExempted(g, selected.get(key(g.statement)) ?? []),
      );
      expect(unneeded.map(grantLine)).toEqual([]);
      // Each refusal names the grant taken away: the action, or a resource the statement named.
      for (const g of replays.filter((each) => each.kind === "action")) {
        for (const refused of g.refused) expect(refused.action, grantLine(g)).toBe(g.value);
      }
      if (only !== "not-in-dev") expect(replays.length).toBeGreaterThan(20);
    }, 600_000);

    if (only !== "not-in-dev") {
      it("fails with the ResultWriter's statement reduced to s3:PutObject, or without states:StopExecution, naming what is missing", async () => {
        const statements = statementsOf(rehearsal.plan);
        const writers = statements.filter((s) => s.actions.includes("s3:ListMultipartUploadParts"));
        const stoppers = statements.filter((s) => s.actions.includes("states:StopExecution"));
        // Both state machines with a Distributed Map; the batch's .sync:2 statement besides.
        expect(writers.map((s) => s.ref.role).sort()).toEqual([
          "PromptsStateMachineRole",
          "VoicemailBatchStateMachineRole",
        ]);
        expect(stoppers).toHaveLength(3);
        // The replay of the successful run: each missing action refuses a request it made.
        for (const { ref } of writers) {
          const refused = await replayWith(rehearsal.plan, baseline.calls, ref, (s) => ({
            ...s,
            Action: ["s3:PutObject"],
          }));
          expect(new Set(refused.map((d) => d.action)), key(ref)).toEqual(
            new Set(["s3:GetObject", "s3:ListMultipartUploadParts", "s3:AbortMultipartUpload"]),
          );
        }
        for (const { ref, actions } of stoppers) {
          const refused = await replayWith(rehearsal.plan, baseline.calls, ref, (s) => ({
            ...s,
            Action: actions.filter((a) => a !== "states:StopExecution"),
          }));
          expect(refused.length, key(ref)).toBeGreaterThan(0);
          expect(new Set(refused.map((d) => d.action)), key(ref)).toEqual(new Set(["states:StopExecution"]));
        }
        // And a run: the stopped batch fails under each mutation of the batch's role, naming it.
        const batch = (s: { ref: StatementRef }) => s.ref.role === "VoicemailBatchStateMachineRole";
        const mutations = [
          ...writers
            .filter(batch)
            .map((s) => ({ ...s, kept: ["s3:PutObject"], missing: "s3:AbortMultipartUpload" })),
          ...stoppers.filter(batch).map((s) => ({
            ...s,
            kept: s.actions.filter((a) => a !== "states:StopExecution"),
            missing: "states:StopExecution",
          })),
        ];
        expect(mutations).toHaveLength(3);
        for (const { ref, kept, missing } of mutations) {
          const statement = rehearsal.plan.stateMachines
            .find((m) => m.role.logicalName === ref.role)
            ?.role.policies.find((p) => p.name === ref.policy)?.document.Statement[ref.index - 1];
          const restore = rehearsal.withoutStatement(ref, { ...statement, Action: kept });
          let report: RehearsalReport;
          try {
            report = await rehearsal.run(runUpTo("batchStopped"));
          } finally {
            restore();
          }
          expect(report.ok, key(ref)).toBe(false);
          const refused = report.calls.flatMap((call) => call.decisions.filter((d) => !d.allowed));
          expect(
            refused.map((d) => `${d.role} ${d.action}`),
            key(ref),
          ).toContain(`${ref.role} ${missing}`);
        }
      }, 600_000);
    }
  });
}
