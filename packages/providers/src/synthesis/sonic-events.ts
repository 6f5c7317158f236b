import { SynthesisFailed } from "@voxtrail/core";

/** A word and where it is spoken in the synthesized audio. */
export interface WordTiming {
  word: string;
  startMs: number;
  endMs: number;
}

/**
 * One Sonic response event, reduced to what the synthesizer acts on. Event types it does not act
 * on (`phoneme_timestamps`, and any added later) are skipped by the decoder.
 */
export type SonicEvent =
  | { type: "chunk"; audio: Uint8Array }
  | { type: "timestamps"; words: WordTiming[] }
  | { type: "done" }
  | { type: "error"; statusCode: number | undefined };

/**
 * Turns the bytes of Sonic's `PayloadPart`s into events. Each event is one line of JSON ended by
 * `\n`; SageMaker may pack several events into one part and split one event across parts, at any
 * byte, even inside a multi-byte UTF-8 character, so text is decoded as a stream and buffered to
 * the next newline.
 *
 * @example
 * const decoder = new SonicEventDecoder();
 * for (const event of decoder.push(part.Bytes)) if (event.type === "chunk") play(event.audio);
 */
export class SonicEventDecoder {
  readonly #utf8 = new TextDecoder("utf-8", { fatal: true });
  #partial = "";

  /** Decodes one part's bytes and returns the events it completes, in order. */
  push(bytes: Uint8Array): SonicEvent[] {
    const text = this.#decode(bytes);
    if (!text.includes("\n")) {
      this.#partial += text;
      return [];
    }
    const lines = (this.#partial + text).split("\n");
    this.#partial = lines.pop() ?? "";
    return lines.flatMap((line) => parseLine(line));
  }

  /** Whether bytes of an unfinished event are buffered. */
  get pending(): boolean {
    return this.#partial.length > 0;
  }

  #decode(bytes: Uint8Array): string {
    try {
      return this.#utf8.decode(bytes, { stream: true });
    } catch {
      throw new SynthesisFailed("Sonic response stream is not valid UTF-8");
    }
  }
}

function parseLine(line: string): SonicEvent[] {
  if (line.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new SynthesisFailed("Sonic response event is not valid JSON");
  }
  if (typeof value !== "object" || value === null) {
    throw new SynthesisFailed("Sonic response event is not a JSON object");
  }
  const event = value as Record<string, unknown>;
  switch (event.type) {
    case "chunk":
      if (typeof event.data !== "string") throw malformed("chunk");
      // Copied out of Buffer's shared pool, so that `audio.buffer` holds this chunk only.
      return [{ type: "chunk", audio: new Uint8Array(Buffer.from(event.data, "base64")) }];
    case "timestamps":
      return [{ type: "timestamps", words: wordTimings(event.word_timestamps) }];
    case "done":
      return [{ type: "done" }];
    case "error":
      return [
        { type: "error", statusCode: typeof event.status_code === "number" ? event.status_code : undefined },
      ];
    default:
      return [];
  }
}

/** Sonic's `word_timestamps`: parallel arrays of words and start/end times in seconds. */
function wordTimings(value: unknown): WordTiming[] {
  const { words, start, end } = (value ?? {}) as { words?: unknown; start?: unknown; end?: unknown };
  if (!isArrayOf(words, "string") || !isArrayOf(start, "number") || !isArrayOf(end, "number")) {
    throw malformed("timestamps");
  }
  if (start.length !== words.length || end.length !== words.length) throw malformed("timestamps");
  return words.map((word, i) => ({
    word,
    startMs: (start[i] as number) * 1000,
    endMs: (end[i] as number) * 1000,
  }));
}

function isArrayOf<T extends "string" | "number">(
  value: unknown,
  type: T,
): value is (T extends "string" ? string : number)[] {
  return Array.isArray(value) && value.every((item) => typeof item === type);
}

function malformed(type: string): SynthesisFailed {
  return new SynthesisFailed(`Sonic response event ${type} is malformed`);
}
