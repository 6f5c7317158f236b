import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RedactionSettings } from "@voxtrail/core";
import {
  type LambdaProviderName,
  PROVIDER_ENVIRONMENT,
  type ProviderSelection,
  providerDeclaration,
  providersWhere,
  type RegistryRole,
  SYNTHESIZER_LANGUAGES,
  speaksLanguage,
  transcriptionModeOf,
} from "@voxtrail/workflow";
import { z } from "zod";

/** A stage's configuration file is missing, is not JSON, or breaks a rule; the message names the file and the field. */
export class StageConfigInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StageConfigInvalid";
  }
}

/** Environment variable naming a stage configuration file to use instead of `config/stages/<stage>.json`. */
const STAGE_CONFIG_ENVIRONMENT = "VOXTRAIL_STAGE_CONFIG";

/**
 * The providers that can run in Lambda (`PROVIDER_REGISTRY`'s `lambda`: the embedded engines mostly
 * need a laptop's binaries). A service-job transcriber (Amazon Transcribe) runs as a job the
 * voicemail workflow starts, waits for and reads (stacks/pipeline.ts).
 */
const LAMBDA_TRANSCRIBERS = lambdaProviders("transcriber");
const LAMBDA_REASONERS = lambdaProviders("reasoner");
const LAMBDA_SYNTHESIZERS = lambdaProviders("synthesizer");

/** The names of `role` a deployed stage can choose, as `z.enum` takes them. */
function lambdaProviders<R extends RegistryRole>(
  role: R,
): [LambdaProviderName<R>, ...LambdaProviderName<R>[]] {
  return providersWhere(role, (declared) => declared.lambda) as [
    LambdaProviderName<R>,
    ...LambdaProviderName<R>[],
  ];
}

const Days = z.number().int().positive();

/** Lifecycle of one key prefix: Standard-IA after N days (S3's minimum is 30), expiry after M days. */
const PrefixLifecycle = z
  .object({
    transitionToInfrequentAccessAfterDays: Days.min(30).optional(),
    expireAfterDays: Days.optional(),
  })
  .strict()
  .refine(
    (rule) =>
      rule.expireAfterDays === undefined ||
      rule.transitionToInfrequentAccessAfterDays === undefined ||
      rule.expireAfterDays > rule.transitionToInfrequentAccessAfterDays,
    { message: "expireAfterDays must come after transitionToInfrequentAccessAfterDays" },
  );

/** An endpoint that already exists in the stage's account and region, by name. */
const ExistingSonicEndpoint = z
  .object({
    endpointName: z.string().regex(/^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/, "a SageMaker endpoint name"),
    variantName: z.string().min(1).default("AllTraffic"),
  })
  .strict();

/** Cartesia's own figure for generations per instance before its container answers 429 (docs/volume.md). */
const SONIC_GENERATIONS_PER_INSTANCE = 4;

/** What a SageMaker model package ARN looks like. */
const MODEL_PACKAGE_ARN = /^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:\d{12}:model-package\/[A-Za-z0-9-]+(\/\d+)?$/;
const MODEL_PACKAGE_ARN_MESSAGE = "the ARN of the Sonic model package your account subscribed to";

/**
 * A value the stage file leaves to the deploying shell, `{"fromEnvironment": "NAME"}`: for values
 * that belong to an account rather than to the repository. {@link loadStageConfig} replaces it with
 * the variable's value before checking the file.
 */
const FromEnvironment = z.object({ fromEnvironment: z.string().regex(/^[A-Z][A-Z0-9_]*$/) }).strict();

/** An endpoint the stage creates from Cartesia's Sonic model package (an AWS Marketplace subscription). */
const CreatedSonicEndpoint = z
  .object({
    /**
     * The subscription's model package ARN (account-specific). In a stage file, the ARN or
     * `{"fromEnvironment": "VOXTRAIL_SONIC_MODEL_PACKAGE_ARN"}` (production.json).
     */
    modelPackageArn: z.string().regex(MODEL_PACKAGE_ARN, MODEL_PACKAGE_ARN_MESSAGE),
    /** Cartesia documents ml.g6e.xlarge (one L40S) for Sonic 3.x on SageMaker. */
    instanceType: z.string().regex(/^ml\.g[0-9a-z]+\.[0-9a-z]+$/, "a GPU instance type (ml.g...)"),
    minInstances: z.number().int().min(1),
    maxInstances: z.number().int().min(1),
    /**
     * Generations one instance serves at once before its container answers 429: Cartesia's Sonic
     * 3.6 README says 4 in its 429 section (its hardware page says 8 per L40S, the same README 10
     * concurrent requests); the gates are sized from the figure at which the container refuses
     * (docs/volume.md). Replace it with a measured figure when there is one.
     */
    generationsPerInstance: z.number().int().min(1).default(SONIC_GENERATIONS_PER_INSTANCE),
    /** Target of SageMakerVariantConcurrentRequestsPerModelHighResolution: at most `generationsPerInstance`. */
    targetConcurrentRequestsPerInstance: z.number().positive(),
    scaleInCooldownSeconds: z.number().int().nonnegative().default(300),
    /**
     * Target tracking's scale-out cooldown: it lets a larger scale-out through, which every
     * proportional step is, so the load rehearsal's stand-in (`SonicFleet`) adds no wait for it.
     */
    scaleOutCooldownSeconds: z.number().int().nonnegative().default(60),
  })
  .strict()
  .refine((sonic) => sonic.maxInstances >= sonic.minInstances, {
    message: "maxInstances must be at least minInstances",
  })
  .refine((sonic) => sonic.targetConcurrentRequestsPerInstance <= sonic.generationsPerInstance, {
    message:
      "targetConcurrentRequestsPerInstance must be at most generationsPerInstance: beyond it every instance answers 429",
  });

/** One alarm: breached when the statistic passes `threshold` for `evaluationPeriods` periods in a row. */
const Alarm = z
  .object({ threshold: z.number().positive(), evaluationPeriods: z.number().int().min(1) })
  .strict();

/**
 * How many items the batch workflows run at once. A voicemail batch runs whole voicemail
 * executions (transcription, reasoning, one synthesis each); a prompts job runs one synthesis per
 * prompt. `promptsMaxConcurrency` may be left out when the stage creates its Sonic endpoint: it is
 * then a quarter of the endpoint's capacity (see {@link promptsMaxConcurrency}).
 */
const Workflows = z
  .object({
    batchMaxConcurrency: z.number().int().min(1).default(4),
    promptsMaxConcurrency: z.number().int().min(1).optional(),
  })
  .strict();

const ProviderFields = z
  .object({
    transcriber: z.enum(LAMBDA_TRANSCRIBERS),
    reasoner: z.enum(LAMBDA_REASONERS),
    synthesizer: z.enum(LAMBDA_SYNTHESIZERS),
    voiceId: z.uuid(),
    /** The records (JSON Lines) as a key in the stage's own bucket... */
    recordsKey: z.string().min(1).optional(),
    /** ...or anywhere else, `s3://bucket/key`. */
    recordsUri: z
      .string()
      .regex(/^s3:\/\/[^/]+\/.+$/)
      .optional(),
    bedrockModelId: z.string().min(1).optional(),
    sonicModel: z.string().min(1).optional(),
    sonicModelVersion: z.string().min(1).optional(),
    cartesiaTtsModel: z.string().min(1).optional(),
    cartesiaSttModel: z.string().min(1).optional(),
    cartesiaBaseUrl: z.url().optional(),
  })
  .strict();

/** The settings a stage file holds (others, like the Sonic endpoint's name, the stacks resolve). */
const CONFIGURED_SETTINGS: ReadonlySet<string> = new Set(Object.keys(ProviderFields.shape));

const Providers = ProviderFields.refine(
  (p) => (p.recordsKey === undefined) !== (p.recordsUri === undefined),
  {
    message: "give exactly one of recordsKey (in the stage's bucket) and recordsUri",
  },
).superRefine((p, context) => {
  for (const message of missingSettings(p)) context.addIssue({ code: "custom", message });
});

/**
 * What the chosen providers need (`PROVIDER_REGISTRY`'s `needs`) among the settings a stage file
 * holds, and the file leaves out: `the bedrock reasoner needs bedrockModelId`.
 */
function missingSettings(providers: Record<string, unknown>): string[] {
  return (["transcriber", "reasoner", "synthesizer"] as const).flatMap((role) => {
    const name = String(providers[role]);
    const needs = providerDeclaration(role, name)?.needs ?? [];
    return needs
      .filter((setting) => CONFIGURED_SETTINGS.has(setting) && providers[setting] === undefined)
      .map((setting) => `the ${name} ${role} needs ${setting}`);
  });
}

/**
 * One stage's configuration, `config/stages/<stage>.json`: everything that differs between
 * stages, in one place. Rules that span fields are checked here, before anything is deployed.
 */
export const StageConfig = z
  .object({
    description: z.string(),
    /** A file of `config/boundary-policy/`, without `.json`. */
    boundaryPolicy: z.string().regex(/^[a-z0-9-]+$/),
    providers: Providers,
    /**
     * The languages the stage's calls may be in (BCP 47 with region: `en-US`, `es-US`;
     * docs/languages.md). Each call's comes from its object metadata or a language folder in its
     * key, else Amazon Transcribe identifies it among these; one not listed fails named. Absent,
     * every call is English, as before.
     */
    languages: z
      .array(z.string().regex(/^[a-z]{2}-[A-Z]{2}$/, "a language with its region, e.g. en-US"))
      .min(1)
      .optional(),
    /**
     * Redaction of callers' data (docs/redaction.md): Transcribe's `ContentRedaction` output
     * (`redacted` or `redacted_and_unredacted`) and, optionally, its `PiiEntityTypes`; our own
     * redactor runs after it. Left out: nothing is redacted.
     */
    redaction: z.strictObject(RedactionSettings.shape).optional(),
    /** Needed when the synthesizer is `sonic-sagemaker`: an existing endpoint, or one to create. */
    sonic: z.union([ExistingSonicEndpoint, CreatedSonicEndpoint]).optional(),
    storage: z
      .object({
        incoming: PrefixLifecycle,
        artifacts: PrefixLifecycle,
        reports: PrefixLifecycle,
        lineageSummaries: PrefixLifecycle,
        noncurrentVersionsExpireAfterDays: Days,
        abortIncompleteUploadsAfterDays: Days,
        /** Deny deleting any version of `lineage/*`, to everyone, and never expire it. */
        protectLineage: z.boolean(),
        /**
         * S3 Object Lock retention for the audit trail: each object written under lineage/,
         * lineage-summaries/, lineage-digests/ and erasures/ is retained this long; caller data never.
         */
        objectLock: z
          .object({ mode: z.enum(["GOVERNANCE", "COMPLIANCE"]), days: Days })
          .strict()
          .optional(),
      })
      .strict(),
    workflows: Workflows.default({ batchMaxConcurrency: 4 }),
    observability: z
      .object({
        periodSeconds: z.number().int().min(60).multipleOf(60),
        failedExecutions: Alarm,
        ttfbP95Ms: Alarm,
        throttles: Alarm,
        alarmEmail: z.email().optional(),
      })
      .strict(),
  })
  .strict()
  .superRefine((config, ctx) => {
    const spoken: readonly string[] =
      SYNTHESIZER_LANGUAGES[config.providers.synthesizer as keyof typeof SYNTHESIZER_LANGUAGES] ?? [];
    for (const language of config.languages ?? []) {
      if (!speaksLanguage(spoken, language)) {
        ctx.addIssue({
          code: "custom",
          path: ["languages"],
          message: `${language} is not a language the synthesizer ${config.providers.synthesizer} speaks (${spoken.join(", ")})`,
        });
      }
    }
    if (config.providers.synthesizer === "sonic-sagemaker" && config.sonic === undefined) {
      ctx.addIssue({ code: "custom", path: ["sonic"], message: "sonic-sagemaker needs a sonic endpoint" });
    }
    if (config.workflows.promptsMaxConcurrency === undefined && !createdSonic(config)) {
      ctx.addIssue({
        code: "custom",
        path: ["workflows", "promptsMaxConcurrency"],
        message: "needed unless the stage creates its Sonic endpoint (then it is a quarter of its capacity)",
      });
      return;
    }
    for (const { path, message } of gateProblems(config)) ctx.addIssue({ code: "custom", path, message });
  });
export type StageConfig = z.infer<typeof StageConfig>;
/** The Sonic endpoint settings of a stage that creates its endpoint. */
export type CreatedSonicEndpoint = z.infer<typeof CreatedSonicEndpoint>;

/** The Sonic endpoint settings when the stage creates its endpoint and synthesizes on it. */
function createdSonic(config: {
  providers: { synthesizer: string };
  sonic?: z.infer<typeof ExistingSonicEndpoint> | CreatedSonicEndpoint | undefined;
}): CreatedSonicEndpoint | undefined {
  const sonic = config.sonic;
  return config.providers.synthesizer === "sonic-sagemaker" && sonic && "modelPackageArn" in sonic
    ? sonic
    : undefined;
}

/**
 * Prompts synthesized at once by the prompts workflow's Map: `workflows.promptsMaxConcurrency`
 * when set, else a quarter of the capacity of the Sonic endpoint the stage creates, fully scaled
 * out ({@link sonicCapacity}), rounded down: IVR prompt jobs share the endpoint with live calls.
 *
 * @example
 * promptsMaxConcurrency(productionConfig); // 6 (a quarter of 6 instances x 4 generations)
 */
export function promptsMaxConcurrency(config: StageConfig): number {
  const explicit = config.workflows.promptsMaxConcurrency;
  if (explicit !== undefined) return explicit;
  const capacity = sonicCapacity(config);
  if (capacity === undefined) throw new StageConfigInvalid("workflows.promptsMaxConcurrency is not set");
  return Math.max(1, Math.floor(capacity / 4));
}

/**
 * Concurrent generations the Sonic endpoint the stage creates serves fully scaled out
 * (`maxInstances` x `generationsPerInstance`), or `undefined` for an endpoint it does not create.
 *
 * @example
 * sonicCapacity(productionConfig); // 24
 */
export function sonicCapacity(config: Pick<StageConfig, "providers" | "sonic">): number | undefined {
  const sonic = createdSonic(config);
  return sonic ? sonic.maxInstances * sonic.generationsPerInstance : undefined;
}

/**
 * The gates in front of the Sonic endpoint the stage creates: the synthesis functions' reserved
 * concurrency (Lambda refuses an invocation beyond it with `TooManyRequestsException`, which the
 * workflows wait out: RETRY_CLASSES.throttled), summing to the endpoint's capacity, so the
 * workflows never ask it for more generations than it serves fully scaled out. The prompts
 * function gets {@link promptsMaxConcurrency}, the voicemail workflow's Synthesize the rest. While
 * the endpoint has fewer instances than `maxInstances`, the excess meets the container's 429
 * (`SynthesisThrottled`, waited out the same way) until the scaling policy adds instances.
 * `undefined` for an endpoint the stage does not create (its capacity is not known here).
 *
 * @example
 * synthesisGates(productionConfig); // { capacity: 24, synthesize: 18, synthesizePrompt: 6 }
 */
export function synthesisGates(
  config: StageConfig,
): { capacity: number; synthesize: number; synthesizePrompt: number } | undefined {
  const capacity = sonicCapacity(config);
  if (capacity === undefined) return undefined;
  const synthesizePrompt = promptsMaxConcurrency(config);
  return { capacity, synthesize: capacity - synthesizePrompt, synthesizePrompt };
}

/**
 * What breaks the gates' rules: the prompts workflow must leave the voicemail workflow some of
 * the endpoint, and a voicemail batch at most three quarters of that, so live calls always keep a
 * quarter of synthesis however large a backfill is.
 */
function gateProblems(config: StageConfig): Array<{ path: string[]; message: string }> {
  const capacity = sonicCapacity(config);
  if (capacity === undefined) return [];
  const prompts = promptsMaxConcurrency(config);
  if (prompts >= capacity) {
    return [
      {
        path: ["workflows", "promptsMaxConcurrency"],
        message: `must be below the Sonic endpoint's capacity (${capacity}), which live calls share`,
      },
    ];
  }
  const batchLimit = Math.floor(((capacity - prompts) * 3) / 4);
  return config.workflows.batchMaxConcurrency > batchLimit
    ? [
        {
          path: ["workflows", "batchMaxConcurrency"],
          message: `must be at most ${batchLimit}: three quarters of the ${capacity - prompts} syntheses the voicemail workflow may run at once, so live calls keep the rest`,
        },
      ]
    : [];
}

/** Rules only production must meet: redundancy and protected lineage. */
function productionRules(config: StageConfig): string[] {
  const broken: string[] = [];
  if (config.sonic && "modelPackageArn" in config.sonic && config.sonic.minInstances < 2) {
    broken.push("sonic.minInstances must be at least 2 in production");
  }
  if (!config.storage.protectLineage) broken.push("storage.protectLineage must be true in production");
  return broken;
}

/**
 * Replaces `sonic.modelPackageArn` given as `{"fromEnvironment": "NAME"}` with the value of `NAME`
 * in `env`. Throws {@link StageConfigInvalid} naming the file, the field and the variable when the
 * variable is unset or is not a model package ARN.
 */
function resolveFromEnvironment(json: unknown, file: string, env: NodeJS.ProcessEnv): unknown {
  const sonic = (json as { sonic?: unknown } | null)?.sonic;
  if (typeof sonic !== "object" || sonic === null) return json;
  const reference = FromEnvironment.safeParse((sonic as { modelPackageArn?: unknown }).modelPackageArn);
  if (!reference.success) return json;
  const variable = reference.data.fromEnvironment;
  const value = env[variable];
  const field = `${file}: sonic.modelPackageArn`;
  if (!value) {
    throw new StageConfigInvalid(
      `${field}: set ${variable} to ${MODEL_PACKAGE_ARN_MESSAGE} (the file reads it from the environment)`,
    );
  }
  if (!MODEL_PACKAGE_ARN.test(value)) {
    throw new StageConfigInvalid(
      `${field}: ${variable} is not a model package ARN; give ${MODEL_PACKAGE_ARN_MESSAGE}`,
    );
  }
  return { ...(json as Record<string, unknown>), sonic: { ...sonic, modelPackageArn: value } };
}

/**
 * Reads and checks a stage's configuration: the file named by `VOXTRAIL_STAGE_CONFIG` when set
 * (keep account-specific values outside the repository), else `config/stages/<stage>.json`, else
 * `config/stages/dev.json` (personal and preview stages). A `sonic.modelPackageArn` given as
 * `{"fromEnvironment": "NAME"}` is read from `env` (production.json reads
 * `VOXTRAIL_SONIC_MODEL_PACKAGE_ARN`). Throws {@link StageConfigInvalid} naming the file and every
 * broken field (and the variable, for a value read from the environment).
 *
 * @example
 * const { config, file } = loadStageConfig("production", $cli.paths.root);
 * config.sonic; // { modelPackageArn: "arn:aws:sagemaker:...", instanceType: "ml.g6e.xlarge", minInstances: 2, ... }
 */
export function loadStageConfig(
  stage: string,
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): { config: StageConfig; file: string } {
  const directory = join(root, "config/stages");
  const own = join(directory, `${stage}.json`);
  const file = env[STAGE_CONFIG_ENVIRONMENT] || (existsSync(own) ? own : join(directory, "dev.json"));
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new StageConfigInvalid(`${file}: ${(error as Error).message}`);
  }
  const parsed = StageConfig.safeParse(resolveFromEnvironment(json, file, env));
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
    throw new StageConfigInvalid(`${file}: ${issues.join("; ")}`);
  }
  const broken = stage === "production" ? productionRules(parsed.data) : [];
  if (broken.length > 0) throw new StageConfigInvalid(`${file}: ${broken.join("; ")}`);
  return { config: parsed.data, file };
}

/** The stage's boundary policy file, compacted to one line for the functions' environment. */
export function boundaryPolicyJson(config: StageConfig, root: string): string {
  const file = join(root, "config/boundary-policy", `${config.boundaryPolicy}.json`);
  if (!existsSync(file)) throw new StageConfigInvalid(`boundaryPolicy: ${file} does not exist`);
  return JSON.stringify(JSON.parse(readFileSync(file, "utf8")));
}

/**
 * What a stage's Amazon Transcribe job names start with: `<app>-<stage>-`, so the stage's
 * voicemail state machine can be granted its own jobs (GetTranscriptionJob) and no other stage's
 * (stacks/permissions.ts; StartTranscriptionJob takes no resource, so no name can scope it).
 *
 * @example
 * transcribeJobPrefix("voxtrail", "production"); // "voxtrail-production-"
 */
export function transcribeJobPrefix(app: string, stage: string): string {
  return `${app}-${stage}-`;
}

/**
 * The name of the role Amazon Transcribe assumes for a stage's queued jobs
 * (stacks/transcription-events.ts): fixed, so the functions can be told its ARN before it exists.
 *
 * @example
 * transcribeDataAccessRoleName("voxtrail", "production"); // "voxtrail-production-transcribe-data-access"
 */
export function transcribeDataAccessRoleName(app: string, stage: string): string {
  return `${app}-${stage}-transcribe-data-access`;
}

/**
 * The provider selection the stage's functions run with: the configured providers, the Sonic
 * endpoint the stage uses or created, the records object (a key in the stage's bucket or a full
 * `s3://` URI), and, with Amazon Transcribe, the stage's job name prefix
 * ({@link transcribeJobPrefix}) and the role its queued jobs run with
 * ({@link transcribeDataAccessRoleName}, in the stage's account).
 */
export function stageSelection(
  config: StageConfig,
  resolved: {
    app: string;
    stage: string;
    bucket: string;
    scope: { partition: string; account: string };
    sonicEndpoint?: string | undefined;
  },
): ProviderSelection {
  const { recordsKey, recordsUri, ...providers } = config.providers;
  return {
    ...providers,
    records: "s3",
    recordsUri: recordsUri ?? `s3://${resolved.bucket}/${recordsKey}`,
    ...(resolved.sonicEndpoint === undefined ? {} : { sonicEndpoint: resolved.sonicEndpoint }),
    ...(transcriptionModeOf(providers) === "service-job"
      ? {
          transcribeJobPrefix: transcribeJobPrefix(resolved.app, resolved.stage),
          transcribeDataAccessRoleArn: `arn:${resolved.scope.partition}:iam::${resolved.scope.account}:role/${transcribeDataAccessRoleName(resolved.app, resolved.stage)}`,
        }
      : {}),
  };
}

/** A selection as the environment variables `selectionFromEnvironment` reads back (no secrets). */
export function selectionEnvironment(selection: ProviderSelection): Record<string, string> {
  return Object.fromEntries(
    Object.entries(PROVIDER_ENVIRONMENT).flatMap(([setting, variable]) => {
      const value = selection[setting as keyof ProviderSelection];
      return typeof value === "string" ? [[variable, value]] : [];
    }),
  );
}
