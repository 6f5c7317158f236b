/**
 * Builds the telephone-channel adaptations the embedded transcriber applies to narrowband audio
 * (packages/providers/models/telephony-en-us.means from all four voices, and
 * telephony-en-us-female.means from slt, the one female voice; the transcriber chooses between
 * them per call): each pocketsphinx-en-us's means, adapted by SphinxTrain from the tuning half of
 * the accuracy corpus as the pipeline hears it: each tuning script in each of the voices, with
 * line noise at both levels, as 8 kHz mu-law, normalised to 16 kHz by
 * `normalizeForTranscription`, features as the decoder computes them for narrowband audio (noise
 * removal off). First one MLLR transform of all the means (`bw`, then `mllr_solve`, three times,
 * each aligned with the last), then each mean on its own from the transformed ones (`bw` once
 * more, `map_adapt`: MAP). The held-out half is never read. Both bundled adaptations are built
 * from one set of clips (the female one's are a subset), one chain of `bw` after the other. It
 * needs Debian's sphinxtrain and sphinxbase-utils besides pocketsphinx (apt).
 *
 *   npm run adapt:telephony                     # writes both bundled adaptations, prints their sha256
 *   npx tsx tools/models/telephony-adaptation.ts --out /tmp/t.means --voices awb,rms,slt --iterations 1
 *   npx tsx tools/models/telephony-adaptation.ts --out /tmp/a.means --voices slt --ids t01,t02,t03
 *   npx tsx tools/models/telephony-adaptation.ts --out /tmp/m.means --map no   # the MLLR transform alone
 *
 * `--ids` keeps the tuning scripts whose ids start with one of them (for estimates on part of the
 * tuning half, measured on the rest).
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { normalizeForTranscription } from "@voxtrail/audio";
import type { FliteVoice } from "@voxtrail/local";
import {
  EN_US_MODEL,
  FEMALE_VOICE_ADAPTATION,
  SPHINXTRAIN_DIR,
  TELEPHONY_ADAPTATION,
  writeMixtureWeights,
} from "@voxtrail/providers";
import { ClipAudio, NOISE_LEVELS, VOICES } from "../eval/accuracy-audio";
import { CORPUS_FILE, loadAccuracyCorpus } from "../eval/accuracy-corpus";

import { runSphinxTool as run } from "./sphinx-tool";

const ACOUSTIC_MODEL = EN_US_MODEL.acoustic;
const SPHINXTRAIN = SPHINXTRAIN_DIR;
/** One adaptation to estimate: the means file to write, and the voices of the tuning clips it reads. */
export interface AdaptationTarget {
  out: string;
  voices: readonly FliteVoice[];
}

/** Where the transcriber looks for them, and the voices each is estimated from. */
export const BUNDLED_ADAPTATIONS: readonly AdaptationTarget[] = [
  {
    out: TELEPHONY_ADAPTATION,
    voices: VOICES,
  },
  {
    out: FEMALE_VOICE_ADAPTATION,
    voices: ["slt"],
  },
];
/** Pronunciations of the corpus's words that cmudict lacks (ARPAbet, as cmudict spells them). */
const EXTRA_WORDS: Record<string, string> = { priya: "P R IY Y AH" };
/** The front end of en-us/feat.params, as `sphinx_fe` takes it; noise removal off, as for narrowband audio. */
const FRONT_END =
  "-lowerf 130 -upperf 6800 -nfilt 25 -transform dct -lifter 22 -samprate 16000 -remove_noise no";
/**
 * MLLR estimates, each aligned with the last. Chosen on the tuning half's own telephony copies:
 * 132, 137 and 140 facts of 256 after one, two and three (held-out, measured after: 127, 134, 134).
 */
const ITERATIONS = 3;
/** The decoder's feature settings for `bw` (en-us/feat.params; batch CMN over each clip). */
const FEATURES = "-feat 1s_c_d_dd -svspec 0-12/13-25/26-38 -cmn batch -agc none";

/** How the adaptations are estimated, whatever their voices. */
export interface AdaptationSettings {
  /** MLLR estimates, each aligned with the last; default {@link ITERATIONS}. */
  iterations?: number;
  /** Adapt each mean on its own after the transform (MAP); default true. */
  map?: boolean;
  /** Only the tuning scripts whose ids start with one of these; default all. */
  ids?: readonly string[];
  log: (line: string) => void;
}

/**
 * Adapts the model's means to the tuning half in `voices` and writes them to `out` (a means file,
 * as pocketsphinx's `-mean` reads it); resolves to its sha256.
 *
 * @example
 * await adaptToTelephony({ out: "/tmp/slt.means", voices: ["slt"], log: console.log });
 */
export async function adaptToTelephony(options: AdaptationTarget & AdaptationSettings): Promise<string> {
  const [sha256] = await adaptEachToTelephony([options], options);
  return sha256 as string;
}

/**
 * Estimates each of `targets` as {@link adaptToTelephony} does, from one set of tuning clips: each
 * clip is delivered, normalised and feature-extracted once, however many targets read it, then
 * each target's chain of `bw` runs is estimated in turn. Resolves to their sha256s, in order.
 *
 * @example
 * const [all, female] = await adaptEachToTelephony(BUNDLED_ADAPTATIONS, { log: console.log });
 */
export async function adaptEachToTelephony(
  targets: readonly AdaptationTarget[],
  settings: AdaptationSettings,
): Promise<string[]> {
  const work = await mkdtemp(join(tmpdir(), "voxtrail-telephony-adaptation-"));
  try {
    // In the targets' own order: a target's clips keep the order its estimate alone would give them.
    const voices = [...new Set(targets.flatMap((target) => target.voices))];
    const clips = await writeTuningClips(work, voices, settings.ids);
    await writeTrainingModel(work);
    await extractFeatures(work, clips);
    // One after the other: side by side on this project's 2 shared cores, the two chains took longer.
    for (const [index, target] of targets.entries()) {
      const own = clips.filter((clip) => target.voices.includes(clip.voice));
      settings.log(`telephony adaptation: ${own.length} tuning clips in ${target.voices.join(", ")}`);
      await estimate(work, `target-${index}`, own, target.out, settings);
    }
    return await Promise.all(
      targets.map(async ({ out }) =>
        createHash("sha256")
          .update(await readFile(out))
          .digest("hex"),
      ),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A tuning clip in the work directory: its file id, its voice, and its line of the transcription. */
interface TuningClip {
  id: string;
  voice: FliteVoice;
  transcript: string;
}

/**
 * Writes `wav/<id>.wav` for each tuning script (those `ids` keep) in each of `voices` with each
 * noise level, as the pipeline hears it, and the dictionary bw aligns them with (`words.dict`).
 */
async function writeTuningClips(
  work: string,
  voices: readonly FliteVoice[],
  ids: readonly string[] | undefined,
): Promise<TuningClip[]> {
  const heldOut = voices.filter((voice) => !VOICES.includes(voice));
  if (heldOut.length > 0)
    throw new Error(
      `${heldOut.join(", ")}: not a tuned voice (${VOICES.join(", ")}); held-out speakers never reach a tuning step`,
    );
  const corpus = await loadAccuracyCorpus(CORPUS_FILE);
  const audio = await ClipAudio.open(corpus.noiseSeed, CORPUS_FILE);
  const dictionary = await readFile(EN_US_MODEL.dictionary, "utf8");
  const known = new Set(dictionary.split("\n").map((line) => line.split(" ")[0]));
  await mkdir(join(work, "wav"));
  const clips: TuningClip[] = [];
  for (const script of corpus.scripts.filter(
    (each) => each.split === "tuning" && (ids?.some((id) => each.id.startsWith(id)) ?? true),
  )) {
    const words = script.text
      .toLowerCase()
      .replace(/[^a-z' ]+/g, " ")
      .split(/\s+/)
      .filter(Boolean);
    const unknown = words.filter((word) => !known.has(word) && !(word in EXTRA_WORDS));
    if (unknown.length > 0) {
      throw new Error(`${script.id}: add a pronunciation for ${unknown.join(", ")} to EXTRA_WORDS`);
    }
    for (const voice of voices) {
      for (const noise of NOISE_LEVELS) {
        const id = `${script.id}.${voice}.${noise}`;
        const delivered = await audio.wav({ script, voice, noise, delivery: "telephony" });
        await writeFile(join(work, "wav", `${id}.wav`), normalizeForTranscription(delivered).wav);
        clips.push({ id, voice, transcript: `<s> ${words.join(" ")} </s> (${id})` });
      }
    }
  }
  const extra = Object.entries(EXTRA_WORDS).map(([word, phones]) => `${word} ${phones}\n`);
  await writeFile(join(work, "words.dict"), dictionary + extra.join(""));
  return clips;
}

/** The model as bw reads it, in `hmm/`: text mdef and float mixture weights, besides its own files. */
async function writeTrainingModel(work: string): Promise<void> {
  await mkdir(join(work, "hmm"));
  for (const file of ["means", "variances", "transition_matrices", "noisedict"]) {
    await writeFile(join(work, "hmm", file), await readFile(`${ACOUSTIC_MODEL}/${file}`));
  }
  await run("pocketsphinx_mdef_convert", ["-text", `${ACOUSTIC_MODEL}/mdef`, join(work, "hmm", "mdef")]);
  await writeMixtureWeights(
    `${ACOUSTIC_MODEL}/sendump`,
    `${ACOUSTIC_MODEL}/means`,
    join(work, "hmm", "mixture_weights"),
  );
}

/** Each clip's features (`mfc/<id>.mfc`), as the decoder computes them for narrowband audio. */
async function extractFeatures(work: string, clips: readonly TuningClip[]): Promise<void> {
  await mkdir(join(work, "mfc"));
  const fileids = join(work, "clips.fileids");
  await writeFile(fileids, clips.map((clip) => `${clip.id}\n`).join(""));
  await run("sphinx_fe", [
    ...FRONT_END.split(" "),
    ...flags({ "-c": fileids, "-di": join(work, "wav"), "-do": join(work, "mfc"), "-ei": "wav" }),
    ...flags({ "-eo": "mfc", "-mswav": "yes" }),
  ]);
}

/**
 * Estimates one adaptation from `clips` (their features already in `mfc/`) and writes it to
 * `out`: the MLLR transform, then MAP. Its own files go in `<name>/` of `work`.
 */
async function estimate(
  work: string,
  name: string,
  clips: readonly TuningClip[],
  out: string,
  settings: AdaptationSettings,
): Promise<void> {
  const own = join(work, name);
  await mkdir(own);
  const at = (file: string) => join(own, file);
  const model = (file: string) => join(work, "hmm", file);
  await writeFile(at("clips.fileids"), clips.map((clip) => `${clip.id}\n`).join(""));
  await writeFile(at("clips.transcription"), clips.map((clip) => `${clip.transcript}\n`).join(""));
  // Each estimate aligns the clips with the model as the previous one adapted it (none at first).
  const transform = at("telephony.mllr");
  const trainer = (counts: string, ...adapted: string[]) => [
    ...flags({ "-hmmdir": join(work, "hmm"), "-moddeffn": model("mdef"), "-ts2cbfn": ".ptm." }),
    ...adapted,
    ...FEATURES.split(" "),
    ...flags({ "-dictfn": join(work, "words.dict"), "-fdictfn": model("noisedict") }),
    ...flags({ "-ctlfn": at("clips.fileids"), "-lsnfn": at("clips.transcription") }),
    ...flags({ "-cepdir": join(work, "mfc"), "-cepext": "mfc", "-accumdir": counts }),
    // Its per-frame timers (a getrusage call each) only feed its log, which is not kept.
    ...flags({ "-timing": "no" }),
  ];
  for (let iteration = 1; iteration <= (settings.iterations ?? ITERATIONS); iteration++) {
    const counts = at(`counts-${iteration}`);
    await mkdir(counts);
    await run(`${SPHINXTRAIN}/bw`, trainer(counts, ...(iteration > 1 ? ["-mllrmat", transform] : [])));
    await run(`${SPHINXTRAIN}/mllr_solve`, [
      ...flags({ "-meanfn": model("means"), "-varfn": model("variances") }),
      ...flags({ "-accumdir": counts, "-outmllrfn": transform }),
    ]);
  }
  const transformed = settings.map === false ? out : at("means-transformed");
  await run(`${SPHINXTRAIN}/mllr_transform`, [
    ...flags({ "-inmeanfn": model("means"), "-outmeanfn": transformed, "-mllrmat": transform }),
  ]);
  if (settings.map === false) return;
  // MAP: each mean moved from the transformed one by as much as the clips say of it.
  const counts = at("counts-map");
  await mkdir(counts);
  await run(`${SPHINXTRAIN}/bw`, trainer(counts, "-meanfn", transformed));
  await run(`${SPHINXTRAIN}/map_adapt`, [
    ...flags({ "-moddeffn": model("mdef"), "-ts2cbfn": ".ptm." }),
    ...flags({ "-meanfn": transformed, "-varfn": model("variances") }),
    ...flags({ "-mixwfn": model("mixture_weights"), "-tmatfn": model("transition_matrices") }),
    ...flags({ "-accumdir": counts, "-mapmeanfn": out }),
  ]);
}

/** Command-line flags and their values, in order. */
const flags = (named: Record<string, string>) => Object.entries(named).flat();

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      voices: { type: "string", default: VOICES.join(",") },
      iterations: { type: "string", default: String(ITERATIONS) },
      ids: { type: "string" },
      map: { type: "string", default: "yes" },
    },
  });
  const voices = (values.voices ?? "").split(",").filter(Boolean) as FliteVoice[];
  const iterations = Number(values.iterations);
  const ids = values.ids?.split(",").filter(Boolean);
  if (values.map !== "yes" && values.map !== "no") throw new Error(`--map takes yes or no: ${values.map}`);
  const map = values.map === "yes";
  const targets = values.out === undefined ? BUNDLED_ADAPTATIONS : [{ out: values.out, voices }];
  const sha256s = await adaptEachToTelephony(targets, { iterations, ids, map, log: console.log });
  for (const [index, { out }] of targets.entries()) console.log(`wrote ${out} (sha256 ${sha256s[index]})`);
}
