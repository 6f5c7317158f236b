import { spawn } from "node:child_process";

/** espeak-ng could not speak: it is not installed, it failed, or it was stopped. */
export class EspeakFailed extends Error {
  override readonly name = "EspeakFailed";
}

/** The command that installs espeak-ng on Debian and Ubuntu. */
const ESPEAK_INSTALL_HINT = "install it with: sudo apt-get install espeak-ng";

/** An espeak-ng voice, with its rate (words a minute, espeak's default 175) and pitch (0-99, default 50). */
export interface EspeakVoice {
  /** A voice name with an optional variant, e.g. `en-us`, `en-us+f3`, `es-419`. */
  voice: string;
  rate?: number;
  pitch?: number;
}

/** How long one synthesis may take before espeak-ng is stopped: 60 s. */
const TIMEOUT_MS = 60_000;

/**
 * Debian's espeak-ng, run as its own process (it is GPL: kept out of this one): a formant
 * synthesizer, intelligible and plainly robotic, with English accents and Spanish (`es`, `es-419`)
 * among its voices. The text goes on stdin, never on the command line, so no argument can be
 * injected and it never shows in a process listing; espeak-ng's stderr is dropped (it can quote the
 * text).
 *
 * @example
 * const wav = await new EspeakEngine().synthesizeWav("Thanks for calling.", { voice: "en-us+f3" });
 * // espeak-ng's WAV: 22,050 Hz mono 16-bit
 */
export class EspeakEngine {
  /** espeak-ng's version line, e.g. `1.51`; throws {@link EspeakFailed} when it is not installed. */
  async version(): Promise<string> {
    const out = await run(["--version"], "");
    return /text-to-speech:\s*(\S+)/.exec(out.toString("utf8"))?.[1] ?? "unknown";
  }

  /** Speaks `text` in `voice` and returns the WAV file espeak-ng wrote. */
  async synthesizeWav(text: string, { voice, rate, pitch }: EspeakVoice): Promise<Uint8Array> {
    if (!/^[\w+-]+$/.test(voice))
      throw new EspeakFailed(`not an espeak-ng voice name: ${JSON.stringify(voice)}`);
    const args = ["-v", voice, "--stdout", "--stdin"];
    if (rate !== undefined) args.push("-s", String(Math.round(rate)));
    if (pitch !== undefined) args.push("-p", String(Math.round(pitch)));
    const wav = await run(args, text);
    if (wav.length <= 44) throw new EspeakFailed(`espeak-ng gave no audio for voice ${voice}`);
    return withTrueSizes(wav);
  }
}

/**
 * espeak-ng writes its WAV to a pipe before it knows the length, so the RIFF and data chunk sizes
 * say 0x7ffff000; they are set to what arrived.
 */
function withTrueSizes(wav: Buffer): Buffer {
  const data = wav.indexOf("data", 12, "latin1");
  if (wav.toString("latin1", 0, 4) !== "RIFF" || data < 0 || data + 8 > wav.length)
    throw new EspeakFailed("espeak-ng wrote something other than a WAV file");
  wav.writeUInt32LE(wav.length - 8, 4);
  wav.writeUInt32LE(wav.length - data - 8, data + 4);
  return wav;
}

function run(args: readonly string[], input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("espeak-ng", args, { stdio: ["pipe", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new EspeakFailed(`espeak-ng took longer than ${TIMEOUT_MS} ms and was stopped`));
    }, TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stdin.on("error", () => undefined);
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new EspeakFailed(
          error.code === "ENOENT"
            ? `espeak-ng was not found: ${ESPEAK_INSTALL_HINT}`
            : `espeak-ng could not be started (${error.code ?? error.name})`,
        ),
      );
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(chunks));
      else if (code !== null) reject(new EspeakFailed(`espeak-ng exited with code ${code}`));
      else reject(new EspeakFailed(`espeak-ng was stopped by ${signal}`));
    });
    child.stdin.end(input);
  });
}
