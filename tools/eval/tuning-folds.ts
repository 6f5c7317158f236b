/**
 * The measure every change to the embedded transcriber is chosen by (docs/benchmarks.md: "the
 * changes since"): the tuning half of the accuracy corpus split in two by script, each half's
 * voicemail language model and telephony adaptations built from it alone, and the other half's
 * telephony copies measured with them. The held-out half is never read, and no clip is measured
 * with a model that saw its script.
 *
 * Each fold's models are built the way the bundled ones are (`buildVoicemailLanguageModel` on the
 * fold's scripts and the seed text, `adaptToTelephony` for each bundled adaptation on the fold's
 * scripts) into `--models DIR`, and reused from there when a file is already present: building
 * takes most of the run, so keep a directory while trying changes to the transcriber or the
 * reasoner, and start a new one when what the models are built from changes.
 *
 *   npx tsx tools/eval/tuning-folds.ts --models /tmp/folds            # both folds, the table of both pooled
 *   npx tsx tools/eval/tuning-folds.ts --models /tmp/folds --reference-lengths none --json out.json
 *
 * `--warp-factors`, `--voice-adaptations none` and `--reference-lengths none` are the facts bench's
 * (tools/eval/fact-accuracy.ts).
 */
import { mkdtemp, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { ReferenceLengths } from "@voxtrail/providers";
import { adaptToTelephony, BUNDLED_ADAPTATIONS } from "../models/telephony-adaptation";
import { buildVoicemailLanguageModel, defaultVoicemails } from "../models/voicemail-language-model";
import { type AccuracyScript, CORPUS_FILE, loadAccuracyCorpus } from "./accuracy-corpus";
import { benchFactAccuracy, type FactAccuracyResult } from "./fact-accuracy";
import { summarizeClips } from "./fact-accuracy-summary";
import { factAccuracyTable } from "./fact-accuracy-table";
import type { FactTally } from "./fact-scoring";

/** A tally of no facts. */
const NO_FACTS: FactTally = { right: 0, total: 0, held: 0, statedWrong: 0 };

/** One half of the tuning half: its name and its scripts' ids. */
export interface TuningFold {
  name: string;
  ids: string[];
}

/** The tuning scripts in corpus order, split into a first and a second half (A and B). */
export function tuningFolds(
  scripts: readonly Pick<AccuracyScript, "id" | "split">[],
): [TuningFold, TuningFold] {
  const ids = scripts.filter((script) => script.split === "tuning").map((script) => script.id);
  const half = Math.ceil(ids.length / 2);
  return [
    { name: "A", ids: ids.slice(0, half) },
    { name: "B", ids: ids.slice(half) },
  ];
}

/** The files of a fold's models in `dir`: its language model and one file per bundled adaptation. */
export function foldModels(dir: string, fold: TuningFold): { languageModel: string; adaptations: string[] } {
  return {
    languageModel: join(dir, `${fold.name}.lm.bin`),
    adaptations: BUNDLED_ADAPTATIONS.map((_, index) => join(dir, `${fold.name}-adaptation-${index}.means`)),
  };
}

/**
 * Both folds' runs as one result: every clip, the summaries over all of them, the reasoner's facts
 * on the scripts' own text summed, the engines named per fold.
 */
export function poolFolds(
  runs: readonly { fold: TuningFold; result: FactAccuracyResult }[],
): FactAccuracyResult {
  const [first] = runs;
  if (!first) throw new Error("poolFolds needs at least one run");
  const sum = (pick: (result: FactAccuracyResult) => FactTally): FactTally => ({
    right: runs.reduce((n, run) => n + pick(run.result).right, 0),
    total: runs.reduce((n, run) => n + pick(run.result).total, 0),
    held: runs.reduce((n, run) => n + pick(run.result).held, 0),
    statedWrong: runs.reduce((n, run) => n + pick(run.result).statedWrong, 0),
  });
  const clips = runs.flatMap((run) => run.result.clips);
  return {
    engine: runs.map((run) => `fold ${run.fold.name}'s models: ${run.result.engine}`).join("; "),
    snrDb: first.result.snrDb,
    audioDir: first.result.audioDir,
    clips,
    summaries: summarizeClips(clips),
    textReference: {
      tuning: {
        facts: sum((result) => result.textReference.tuning.facts),
        records: sum((result) => result.textReference.tuning.records),
      },
      "held-out": { facts: NO_FACTS, records: NO_FACTS },
    },
    wallMs: runs.reduce((n, run) => n + run.result.wallMs, 0),
  };
}

/** What the transcriber is run with besides each fold's models (the facts bench's options). */
export interface FoldOptions {
  models: string;
  warpFactors?: readonly number[];
  voiceAdaptations?: readonly string[];
  referenceLengths?: ReferenceLengths;
  log: (line: string) => void;
}

/** Builds each fold's missing models, then measures each fold's telephony copies with the other's. */
export async function benchTuningFolds(options: FoldOptions): Promise<FactAccuracyResult> {
  const corpus = await loadAccuracyCorpus(CORPUS_FILE);
  const folds = tuningFolds(corpus.scripts);
  for (const fold of folds) await buildFoldModels(options.models, fold, options.log);
  const runs: { fold: TuningFold; result: FactAccuracyResult }[] = [];
  for (const [index, fold] of folds.entries()) {
    const other = folds[1 - index] as TuningFold;
    const models = foldModels(options.models, other);
    const [telephony, ...voices] = models.adaptations;
    options.log(`tuning-folds: fold ${fold.name} (${fold.ids.join(", ")}) with fold ${other.name}'s models`);
    const result = await benchFactAccuracy({
      splits: ["tuning"],
      ids: fold.ids,
      deliveries: ["telephony"],
      languageModel: models.languageModel,
      ...(telephony === undefined ? {} : { telephonyAdaptation: telephony }),
      voiceAdaptations: options.voiceAdaptations ?? voices,
      ...(options.warpFactors === undefined ? {} : { warpFactors: options.warpFactors }),
      ...(options.referenceLengths === undefined ? {} : { referenceLengths: options.referenceLengths }),
      log: options.log,
    });
    runs.push({ fold, result });
  }
  return poolFolds(runs);
}

/** Builds whichever of `fold`'s models are not yet in `dir`. */
async function buildFoldModels(dir: string, fold: TuningFold, log: (line: string) => void): Promise<void> {
  const models = foldModels(dir, fold);
  if (!(await exists(models.languageModel))) {
    log(`tuning-folds: building fold ${fold.name}'s language model`);
    await buildVoicemailLanguageModel({
      voicemails: await defaultVoicemails(fold.ids),
      out: models.languageModel,
    });
  }
  for (const [index, bundled] of BUNDLED_ADAPTATIONS.entries()) {
    const out = models.adaptations[index] as string;
    if (await exists(out)) continue;
    log(`tuning-folds: estimating fold ${fold.name}'s adaptation from ${bundled.voices.join(", ")}`);
    await adaptToTelephony({ out, voices: bundled.voices, ids: fold.ids, log });
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      models: { type: "string" },
      json: { type: "string" },
      "warp-factors": { type: "string" },
      "voice-adaptations": { type: "string" },
      "reference-lengths": { type: "string" },
    },
  });
  const none = (flag: string, value: string) => {
    if (value !== "none") throw new Error(`--${flag} takes none here: ${value}`);
  };
  if (values["voice-adaptations"] !== undefined) none("voice-adaptations", values["voice-adaptations"]);
  if (values["reference-lengths"] !== undefined) none("reference-lengths", values["reference-lengths"]);
  const warp = values["warp-factors"];
  const warpFactors = warp === undefined ? undefined : warp === "none" ? [1] : warp.split(",").map(Number);
  if (warpFactors?.some((n) => !(n > 0)))
    throw new Error(`--warp-factors takes none or positive numbers: ${warp}`);
  const models = values.models ?? (await mkdtemp(join(tmpdir(), "voxtrail-tuning-folds-")));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`tuning-folds: models in ${models}`);
  const result = await benchTuningFolds({
    models,
    ...(warpFactors ? { warpFactors } : {}),
    ...(values["voice-adaptations"] === undefined ? {} : { voiceAdaptations: [] }),
    ...(values["reference-lengths"] === undefined ? {} : { referenceLengths: {} }),
    log,
  });
  if (values.json) await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(factAccuracyTable(result));
}
