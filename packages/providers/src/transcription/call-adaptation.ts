import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { TranscriptWord } from "@voxtrail/core";
import { TranscriptionFailed } from "@voxtrail/core";
import { writeMixtureWeights } from "./sphinx-mixture-weights";

/** Where Debian's `sphinxtrain` puts `bw`, `mllr_solve` and `mllr_transform` (not on `PATH`). */
export const SPHINXTRAIN_DIR = "/usr/lib/sphinxtrain";

/** Debian pocketsphinx-en-us's acoustic model and pronunciation dictionary. */
export const EN_US_MODEL = {
  acoustic: "/usr/share/pocketsphinx/model/en-us/en-us",
  dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict",
} as const;

/** The `feat.params` settings that are `sphinx_fe`'s (the filter bank); the rest are `bw`'s. */
const FRONT_END_KEYS = new Set(["-lowerf", "-upperf", "-nfilt", "-transform", "-lifter"]);
/** The `feat.params` settings `bw` takes (the others are the decoder's own). */
const FEATURE_KEYS = new Set(["-feat", "-svspec", "-agc", "-cmn", "-varnorm"]);

/** Runs a tool to the end within the transcription's deadline (the transcriber's runner). */
export type ToolRunner = (command: string, args: string[]) => Promise<string>;

/** What {@link estimateCallMeans} adapts, and how the decode that heard `words` was set. */
export interface CallAdaptationInput {
  /** The call's working directory; the estimate's files go in `call-adaptation/` under it. */
  dir: string;
  /** The call's audio, a 16 kHz mono WAV file. */
  input: string;
  /** What the decode heard: the words the transform is estimated from. */
  words: readonly TranscriptWord[];
  /** The means that decode used: the transform moves these. */
  means: string;
  /** Whether the decode removed noise (`-remove_noise`; off for narrowband audio). */
  removeNoise: boolean;
  /** The decode's frequency-warp factor, if it had one. */
  warp?: number;
  /** The acoustic model's directory; default {@link EN_US_MODEL}'s. */
  modelDir?: string;
  /** Where SphinxTrain's tools are; default {@link SPHINXTRAIN_DIR}. */
  sphinxtrainDir?: string;
  run: ToolRunner;
}

/** The files of an acoustic model that the adaptation reads, besides pocketsphinx's own. */
const MODEL_FILES = [
  "feat.params",
  "mdef",
  "means",
  "variances",
  "transition_matrices",
  "noisedict",
  "sendump",
];

/**
 * Throws `TranscriptionFailed` naming what is missing when SphinxTrain's tools or a file of the
 * acoustic model the adaptation reads are not there: a transcriber that adapts checks before its
 * first pass, so a machine without them fails at once, never after a decode, and never skips the
 * adaptation silently.
 *
 * @example
 * checkCallAdaptation(); // throws "/usr/lib/sphinxtrain/bw was not found: ..." without sphinxtrain
 */
export function checkCallAdaptation(
  sphinxtrainDir: string = SPHINXTRAIN_DIR,
  modelDir: string = EN_US_MODEL.acoustic,
): void {
  const tools = ["bw", "mllr_solve", "mllr_transform"].map((name) => join(sphinxtrainDir, name));
  const missingTool = tools.find((file) => !existsSync(file));
  if (missingTool !== undefined) {
    throw new TranscriptionFailed(
      `${missingTool} was not found: the per-call adaptation needs Debian's sphinxtrain (scripts/setup.sh installs it), or turn it off (callAdaptation: false)`,
    );
  }
  const missingFile = MODEL_FILES.map((name) => join(modelDir, name)).find((file) => !existsSync(file));
  if (missingFile !== undefined) {
    throw new TranscriptionFailed(
      `${missingFile} was not found: the per-call adaptation reads the acoustic model's own files (Debian's pocketsphinx-en-us has them), or turn it off (callAdaptation: false)`,
    );
  }
}

/**
 * Adapts the model to one call's speaker, unsupervised: the words a decode heard are aligned to the
 * call's audio (SphinxTrain's `bw`, features from `sphinx_fe` as the decode computed them), one MLLR
 * transform of all the means is estimated from that alignment (`mllr_solve`: one 39x39 matrix and a
 * bias, about 1,600 numbers against the ~100 frames a second of speech gives) and applied
 * (`mllr_transform`). Resolves to the adapted means file, for a second decode of the same call;
 * `undefined` when there is nothing to align (no words) or a tool fails (the words too far from
 * the audio for `bw` to follow, a tool that crashed), in which case the first decode stands.
 * Throws what {@link checkCallAdaptation} throws; a deadline or an abort passes through.
 *
 * @example
 * const means = await estimateCallMeans({ dir, input, words, means: TELEPHONY_ADAPTATION, removeNoise: false, run });
 * // decode again with ["-mean", means]
 */
export async function estimateCallMeans(options: CallAdaptationInput): Promise<string | undefined> {
  const modelDir = options.modelDir ?? EN_US_MODEL.acoustic;
  checkCallAdaptation(options.sphinxtrainDir, modelDir);
  const tool = (name: string) => join(options.sphinxtrainDir ?? SPHINXTRAIN_DIR, name);
  const spoken = options.words.map((word) => word.word.toLowerCase()).filter(Boolean);
  if (spoken.length === 0) return undefined;
  const work = join(options.dir, "call-adaptation");
  const at = (file: string) => join(work, file);
  try {
    await mkdir(at("mfc"), { recursive: true });
    await mkdir(at("counts"));
    const params = parseFeatParams(await readFile(join(modelDir, "feat.params"), "utf8"));
    // The model as bw reads it: a text mdef and float mixture weights (Debian ships sendump only).
    await options.run("pocketsphinx_mdef_convert", ["-text", join(modelDir, "mdef"), at("mdef")]);
    // A sendump this conversion cannot read (another model's format): no adaptation, as for a tool.
    const converted = await writeMixtureWeights(
      join(modelDir, "sendump"),
      join(modelDir, "means"),
      at("mixture_weights"),
    ).then(
      () => true,
      () => false,
    );
    if (!converted) return undefined;
    // The call is one utterance, named as its audio file is (`sphinx_fe` reads `<dir>/<id>.wav`).
    const id = basename(options.input, ".wav");
    await writeFile(at("call.fileids"), `${id}\n`);
    await writeFile(at("call.transcription"), `<s> ${spoken.join(" ")} </s> (${id})\n`);
    await options.run("sphinx_fe", [
      ...params.frontEnd,
      ...["-samprate", "16000", "-remove_noise", options.removeNoise ? "yes" : "no"],
      ...(options.warp === undefined ? [] : ["-warp_params", String(options.warp)]),
      ...[
        "-c",
        at("call.fileids"),
        "-di",
        dirname(options.input),
        "-do",
        at("mfc"),
        "-ei",
        "wav",
        "-eo",
        "mfc",
        "-mswav",
        "yes",
      ],
    ]);
    await options.run(tool("bw"), [
      ...["-moddeffn", at("mdef"), "-ts2cbfn", ".ptm.", "-meanfn", options.means],
      ...["-varfn", join(modelDir, "variances"), "-mixwfn", at("mixture_weights")],
      ...["-tmatfn", join(modelDir, "transition_matrices"), ...params.features],
      ...["-dictfn", EN_US_MODEL.dictionary, "-fdictfn", join(modelDir, "noisedict")],
      ...["-ctlfn", at("call.fileids"), "-lsnfn", at("call.transcription")],
      ...["-cepdir", at("mfc"), "-cepext", "mfc", "-accumdir", at("counts"), "-timing", "no"],
    ]);
    await options.run(tool("mllr_solve"), [
      ...["-meanfn", options.means, "-varfn", join(modelDir, "variances")],
      ...["-accumdir", at("counts"), "-outmllrfn", at("call.mllr")],
    ]);
    await options.run(tool("mllr_transform"), [
      ...["-inmeanfn", options.means, "-outmeanfn", at("means"), "-mllrmat", at("call.mllr")],
    ]);
  } catch (error) {
    // A tool that failed or crashed (an alignment the words are too far from the audio to follow)
    // ends this step only; a deadline or an abort ends the transcription.
    if (error instanceof TranscriptionFailed && /exited with code|was stopped by SIG/.test(error.message))
      return undefined;
    throw error;
  }
  return existsSync(at("means")) ? at("means") : undefined;
}

/** A model's `feat.params`, split into `sphinx_fe`'s settings and `bw`'s. */
function parseFeatParams(text: string): { frontEnd: string[]; features: string[] } {
  const frontEnd: string[] = [];
  const features: string[] = [];
  for (const line of text.split("\n")) {
    const [key = "", value] = line.trim().split(/\s+/);
    if (value === undefined) continue;
    if (FRONT_END_KEYS.has(key)) frontEnd.push(key, value);
    if (FEATURE_KEYS.has(key)) features.push(key, value);
  }
  return { frontEnd, features };
}
