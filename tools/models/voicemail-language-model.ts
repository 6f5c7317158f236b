/**
 * Builds the language model the embedded transcriber decodes voicemails with
 * (packages/providers/models/voicemail-en-us.lm.bin, not in git: 27 MB, rebuilt by
 * `scripts/setup.sh`): pocketsphinx-en-us's general English trigram model mixed with a trigram
 * model of voicemail text, so that "my account number is" and "call me back at" are likelier than
 * "my count numbers" and "call me by a". The voicemail text is the tuning half of the accuracy
 * corpus (fixtures/accuracy/scripts.json; the held-out half is never read) and
 * fixtures/language-model/voicemail-seed.txt, 406 voicemails written for it without reading that
 * corpus. A deployment should build its own from its callers' transcripts (`--text`, one voicemail
 * per line, which replaces both).
 *
 * Debian's `sphinx_lm_convert` cannot write the general model as ARPA (it fails an assertion), so
 * it is read here ({@link readSphinxTrie}); the mixture is written as ARPA and converted back to
 * sphinx's binary form, which pocketsphinx loads in a fraction of the time.
 *
 *   npm run build:lm                                   # writes the model, prints its sha256
 *   npx tsx tools/models/voicemail-language-model.ts --out /tmp/v.lm.bin --text calls.txt --domain-weight 0.5
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { VOICEMAIL_LANGUAGE_MODEL } from "@voxtrail/providers";
import { writeArpa } from "./language-model/arpa";
import { DomainNgrams } from "./language-model/domain-ngrams";
import { readSphinxTrie } from "./language-model/sphinx-trie";
import { mixModels } from "./language-model/static-mixture";
import { runSphinxTool } from "./sphinx-tool";

const MODEL = "/usr/share/pocketsphinx/model/en-us";
const CORPUS = new URL("../../fixtures/accuracy/scripts.json", import.meta.url);
const SEED = new URL("../../fixtures/language-model/voicemail-seed.txt", import.meta.url);
/**
 * The voicemail model's share of the mixture. Chosen on the tuning half split in two by script,
 * each half's model measured on the other half's telephony copies (96 clips): 193 facts of 256 at 0.5,
 * 192 at 0.3 (and, before numbers and days were classes, 169 at 0.5 against 165 at 0.8); with the
 * seed text, 221 at 0.5 and 219 at 0.7.
 */
export const DOMAIN_WEIGHT = 0.5;

/** What a build reports. */
export interface LanguageModelBuild {
  sentences: number;
  words: number;
  added: { bigrams: number; trigrams: number };
  sha256: string;
}

/**
 * Mixes the general model with a model of `voicemails` (each a transcript or script text) and
 * writes the result, in sphinx's binary form, to `out` (replaced only once complete).
 */
export async function buildVoicemailLanguageModel(options: {
  voicemails: readonly string[];
  out: string;
  domainWeight?: number;
}): Promise<LanguageModelBuild> {
  const general = readSphinxTrie(await readFile(`${MODEL}/en-us.lm.bin`));
  const dictionary = await readFile(`${MODEL}/cmudict-en-us.dict`, "utf8");
  const spelled = new Set(dictionary.split("\n").map((line) => line.split(" ")[0]));
  const known = new Set(general.words.filter((word) => spelled.has(word)));
  const sentences = options.voicemails.flatMap((text) => toSentences(text, known));
  const { model, added } = mixModels(
    general,
    new DomainNgrams(sentences),
    options.domainWeight ?? DOMAIN_WEIGHT,
  );
  const work = await mkdtemp(join(tmpdir(), "voxtrail-language-model-"));
  try {
    const arpa = join(work, "voicemail.arpa");
    const stream = createWriteStream(arpa);
    await writeArpa(model, stream);
    await new Promise<void>((resolve, reject) =>
      stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    const partial = join(dirname(options.out), `.${Date.now()}.partial.lm.bin`);
    await runSphinxTool("sphinx_lm_convert", ["-i", arpa, "-o", partial]);
    await rename(partial, options.out);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const sha256 = createHash("sha256");
  for await (const chunk of createReadStream(options.out)) sha256.update(chunk as Buffer);
  return {
    sentences: sentences.length,
    words: sentences.reduce((sum, sentence) => sum + sentence.length, 0),
    added,
    sha256: sha256.digest("hex"),
  };
}

/**
 * A voicemail's sentences as the model counts them: lower case, split at sentence ends, each word
 * as the dictionary spells it; words not `known` (in the dictionary and the general model) are
 * left out: the decoder could never produce them.
 */
export function toSentences(text: string, known: ReadonlySet<string>): string[][] {
  return text
    .toLowerCase()
    .split(/[.?!\n]+/)
    .map((sentence) =>
      sentence
        .split(/[^a-z']+/)
        .map((word) => word.replace(/^'+|'+$/g, ""))
        .filter((word) => word !== "" && known.has(word)),
    )
    .filter((sentence) => sentence.length > 0);
}

/**
 * The bundled model's voicemail text: the accuracy corpus's tuning scripts and the seed text; with
 * `ids`, only the tuning scripts whose ids start with one of them (a model of part of the tuning
 * half, to measure on the rest).
 */
export async function defaultVoicemails(ids?: readonly string[]): Promise<string[]> {
  const corpus = JSON.parse(await readFile(CORPUS, "utf8")) as {
    scripts: { id: string; split: string; text: string }[];
  };
  const tuning = corpus.scripts
    .filter((script) => script.split === "tuning" && (ids?.some((id) => script.id.startsWith(id)) ?? true))
    .map((script) => script.text);
  return [...tuning, ...(await readLines(SEED))];
}

async function readLines(file: string | URL): Promise<string[]> {
  return (await readFile(file, "utf8")).split("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      out: { type: "string", default: VOICEMAIL_LANGUAGE_MODEL },
      text: { type: "string" },
      "domain-weight": { type: "string" },
    },
  });
  const started = performance.now();
  const voicemails = values.text ? await readLines(values.text) : await defaultVoicemails();
  const build = await buildVoicemailLanguageModel({
    voicemails,
    out: values.out,
    ...(values["domain-weight"] ? { domainWeight: Number(values["domain-weight"]) } : {}),
  });
  process.stdout.write(
    `voicemail language model: ${values.out}\n  ${build.sentences} sentences, ${build.words} words of voicemail text; ` +
      `${build.added.bigrams} bigrams and ${build.added.trigrams} trigrams added to the general model\n` +
      `  sha256 ${build.sha256}; ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
