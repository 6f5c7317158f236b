import { toFile } from "@cartesia/cartesia-js";
import { VERSION as CARTESIA_SDK_VERSION } from "@cartesia/cartesia-js/version";
import { parseWav } from "@voxtrail/audio";
import {
  type Processor,
  primaryLanguage,
  type Transcriber,
  type Transcript,
  TranscriptionFailed,
} from "@voxtrail/core";
import * as z from "zod/mini";
import { CartesiaConnection, type CartesiaConnectionOptions } from "../cartesia/cartesia-connection";
import { toTranscriptionError } from "../cartesia/cartesia-errors";

/** Cartesia's batch speech-to-text model; a dated id (`ink-whisper-2025-06-04`) pins its version. */
export const INK_WHISPER = "ink-whisper";

/** How to reach Cartesia Ink, and which model to ask for. */
export interface CartesiaInkOptions extends CartesiaConnectionOptions {
  /** {@link INK_WHISPER} by default. */
  model?: string;
}

/** The part of `POST /stt`'s response the transcriber uses, checked: the SDK does not validate it. */
const InkResponse = z.object({
  text: z.string(),
  language: z.optional(z.string()),
  words: z.optional(
    z.array(
      z.object({
        word: z.string(),
        start: z.number().check(z.nonnegative()),
        end: z.number().check(z.nonnegative()),
      }),
    ),
  ),
});

/**
 * Cartesia Ink (`ink-whisper`) through `@cartesia/cartesia-js`: `stt.transcribe` uploads the WAV
 * as multipart form data to `POST /stt` with word timestamps. The audio leaves for Cartesia's
 * API: the processor's boundary is `third-party` with the API's host.
 *
 * Every failure is {@link TranscriptionFailed}, whose message carries an HTTP status or the kind of
 * failure, never the API's message, the audio or the API key.
 *
 * @example
 * const transcriber = new CartesiaInkTranscriber({ apiKey: async () => process.env.CARTESIA_API_KEY ?? "" });
 * const transcript = await transcriber.transcribe(wav16k, { language: "en" });
 */
export class CartesiaInkTranscriber implements Transcriber {
  readonly processor: Processor;
  readonly #connection: CartesiaConnection;
  readonly #model: string;

  constructor(options: CartesiaInkOptions) {
    this.#connection = new CartesiaConnection(options);
    this.#model = options.model ?? INK_WHISPER;
    this.processor = {
      provider: "cartesia-ink",
      model: this.#model,
      version: `cartesia-js ${CARTESIA_SDK_VERSION}`,
      endpoint: `${this.#connection.baseURL}/stt`,
      boundary: this.#connection.boundary,
    };
  }

  /**
   * Sends the WAV to Cartesia and returns its words with their times in the audio. A WAV that does
   * not parse is `InvalidAudio`, and nothing is sent.
   */
  async transcribe(
    wav16k: Uint8Array,
    options: { language: string; signal?: AbortSignal },
  ): Promise<Transcript> {
    const { durationMs } = parseWav(wav16k);
    let response: unknown;
    try {
      const client = await this.#connection.client();
      response = await client.stt.transcribe(
        {
          file: await toFile(wav16k, "voicemail.wav", { type: "audio/wav" }),
          model: this.#model,
          // Cartesia takes ISO 639-1 (`es`); a call's language may carry its region (`es-US`).
          language: primaryLanguage(options.language),
          timestamp_granularities: ["word"],
        },
        options.signal ? { signal: options.signal } : undefined,
      );
    } catch (error) {
      throw toTranscriptionError(error);
    }
    const parsed = InkResponse.safeParse(response);
    if (!parsed.success) throw new TranscriptionFailed("Cartesia STT response is malformed");
    const { text, language, words } = parsed.data;
    return {
      text: text.trim(),
      words: (words ?? []).map(({ word, start, end }) => ({
        word: word.trim(),
        startMs: start * 1000,
        endMs: end * 1000,
      })),
      language: language ?? options.language,
      audioMs: durationMs,
      processor: this.processor,
    };
  }
}
