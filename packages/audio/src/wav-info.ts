import { type AudioEncoding, InvalidAudio } from "@voxtrail/core";
import { BYTES_PER_SAMPLE } from "./encodings";

/** What a WAV file's header says about its audio, checked to be something we can decode. */
export interface WavInfo {
  /** Sample encoding of the data chunk. */
  encoding: AudioEncoding;
  /** Frames per second, 8000 to 48000. */
  sampleRate: number;
  /** 1 (mono) or 2 (stereo, interleaved). */
  channels: number;
  /** Bits per sample of one channel: 16, 32, or 8 for G.711. */
  bitsPerSample: number;
  /** Offset of the first sample byte in the file. */
  dataOffset: number;
  /** Length of the sample data in bytes: a whole number of frames, never 0. */
  dataBytes: number;
  /** Duration in milliseconds, `frames / sampleRate * 1000` (may be fractional). */
  durationMs: number;
}

/** Lowest sample rate accepted, in Hz. */
export const MIN_SAMPLE_RATE = 8000;
/** Highest sample rate accepted, in Hz. */
export const MAX_SAMPLE_RATE = 48000;

const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
const FMT_MIN_BYTES = 16;
const FMT_EXTENSIBLE_BYTES = 40;
/** A data size streaming writers leave in place when they cannot seek back: "until the end". */
const DATA_SIZE_UNKNOWN = 0xffffffff;

const FORMAT_PCM = 0x0001;
const FORMAT_IEEE_FLOAT = 0x0003;
const FORMAT_ALAW = 0x0006;
const FORMAT_MULAW = 0x0007;
const FORMAT_EXTENSIBLE = 0xfffe;
/** Bytes 2 to 15 of every KSDATAFORMAT_SUBTYPE GUID derived from a format tag. */
const SUBFORMAT_GUID_TAIL = [
  0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71,
];
/** Names of a few common but unsupported format tags, for clearer messages. */
const FORMAT_NAMES: ReadonlyMap<number, string> = new Map([
  [0x0002, "Microsoft ADPCM"],
  [0x0011, "IMA ADPCM"],
  [0x0031, "GSM 6.10"],
  [0x0055, "MPEG Layer 3"],
]);
const SUPPORTED = "supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law";

interface FormatChunk {
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

interface DataChunk {
  offset: number;
  declaredBytes: number;
}

/**
 * Reads and checks a WAV file's header: walks its RIFF chunks (skipping LIST, fact and any other
 * chunk, honouring the pad byte after odd-sized ones, or doing without it where a writer left it
 * out), understands WAVE_FORMAT_EXTENSIBLE, and accepts 16-bit PCM, 32-bit float, 8-bit A-law
 * and mu-law, mono or stereo, 8 to 48 kHz. The RIFF size is not trusted; a data size of 0xFFFFFFFF
 * (left by streaming writers) means "to the end of the file", rounded down to whole frames.
 *
 * @throws InvalidAudio when the bytes are empty, not WAV, truncated, malformed or unsupported; the
 * message says what is wrong and never quotes the file's contents.
 * @example
 * const info = parseWav(bytes);
 * // { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1, bitsPerSample: 8, dataOffset: 58, ... }
 * const samples = bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes);
 */
export function parseWav(bytes: Uint8Array): WavInfo {
  if (bytes.length === 0) throw new InvalidAudio("the audio file is empty (0 bytes)");
  if (bytes.length < RIFF_HEADER_BYTES) {
    throw new InvalidAudio(
      `too short to be a WAV file: ${bytes.length} bytes, less than the ${RIFF_HEADER_BYTES}-byte RIFF/WAVE header`,
    );
  }
  checkRiffHeader(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { format, data } = findChunks(bytes, view);
  if (!format) throw new InvalidAudio("invalid WAV file: it has no fmt chunk (format description)");
  if (!data) throw new InvalidAudio("invalid WAV file: it has no data chunk");

  const encoding = encodingOf(format);
  checkChannels(format.channels);
  checkSampleRate(format.sampleRate);
  const frameBytes = BYTES_PER_SAMPLE[encoding] * format.channels;
  const dataBytes = dataLength(data, bytes.length, frameBytes);
  return {
    encoding,
    sampleRate: format.sampleRate,
    channels: format.channels,
    bitsPerSample: format.bitsPerSample,
    dataOffset: data.offset,
    dataBytes,
    durationMs: ((dataBytes / frameBytes) * 1000) / format.sampleRate,
  };
}

function checkRiffHeader(bytes: Uint8Array): void {
  const container = fourCC(bytes, 0);
  if (container === "RIFX") throw new InvalidAudio("big-endian (RIFX) WAV files are not supported");
  if (container === "RF64") throw new InvalidAudio("RF64 WAV files are not supported");
  if (container !== "RIFF" || fourCC(bytes, 8) !== "WAVE") {
    throw new InvalidAudio("not a WAV file: expected a RIFF/WAVE header");
  }
}

/** Walks the chunks after the RIFF header until both fmt and data are found or the bytes end. */
function findChunks(bytes: Uint8Array, view: DataView): { format?: FormatChunk; data?: DataChunk } {
  let format: FormatChunk | undefined;
  let data: DataChunk | undefined;
  let offset = RIFF_HEADER_BYTES;
  while (offset + CHUNK_HEADER_BYTES <= bytes.length && !(format && data)) {
    const id = fourCC(bytes, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + CHUNK_HEADER_BYTES;
    if (id === "fmt ") format ??= readFormat(view, body, size);
    else if (id === "data") data ??= { offset: body, declaredBytes: size };
    offset = nextChunkOffset(bytes, body + size, size);
  }
  return { format, data };
}

/**
 * Where the next chunk starts, after a chunk of `size` bytes whose body ends at `end`: after the
 * pad byte that follows an odd-sized body, unless the writer left that byte out (no plausible
 * chunk header starts after it, but one starts right at `end`).
 */
function nextChunkOffset(bytes: Uint8Array, end: number, size: number): number {
  if (size % 2 === 0) return end;
  const padded = end + 1;
  return !startsChunk(bytes, padded) && startsChunk(bytes, end) ? end : padded;
}

/** Whether a plausible chunk header starts at `offset`: 8 bytes, the first 4 printable ASCII. */
function startsChunk(bytes: Uint8Array, offset: number): boolean {
  if (offset + CHUNK_HEADER_BYTES > bytes.length) return false;
  return bytes.subarray(offset, offset + 4).every((byte) => byte >= 0x20 && byte <= 0x7e);
}

function readFormat(view: DataView, body: number, size: number): FormatChunk {
  if (size < FMT_MIN_BYTES) {
    throw new InvalidAudio(
      `invalid WAV file: the fmt chunk is ${size} bytes, shorter than the ${FMT_MIN_BYTES} a format needs`,
    );
  }
  const present = view.byteLength - body;
  if (size > present) {
    throw new InvalidAudio(`truncated: the fmt chunk declares ${size} bytes but only ${present} are present`);
  }
  const declaredTag = view.getUint16(body, true);
  return {
    formatTag: declaredTag === FORMAT_EXTENSIBLE ? extensibleSubformat(view, body, size) : declaredTag,
    channels: view.getUint16(body + 2, true),
    sampleRate: view.getUint32(body + 4, true),
    bitsPerSample: view.getUint16(body + 14, true),
  };
}

/** The real format tag of a WAVE_FORMAT_EXTENSIBLE fmt chunk: the first two bytes of its GUID. */
function extensibleSubformat(view: DataView, body: number, size: number): number {
  if (size < FMT_EXTENSIBLE_BYTES) {
    throw new InvalidAudio(
      `invalid WAV file: the WAVE_FORMAT_EXTENSIBLE fmt chunk is ${size} bytes, shorter than the ${FMT_EXTENSIBLE_BYTES} it needs`,
    );
  }
  const guid = body + 24;
  const standard = SUBFORMAT_GUID_TAIL.every((byte, i) => view.getUint8(guid + 2 + i) === byte);
  if (!standard) {
    throw new InvalidAudio(
      `unsupported WAV encoding: a non-standard WAVE_FORMAT_EXTENSIBLE subformat (${SUPPORTED})`,
    );
  }
  return view.getUint16(guid, true);
}

function encodingOf({ formatTag, bitsPerSample: bits }: FormatChunk): AudioEncoding {
  switch (formatTag) {
    case FORMAT_PCM:
      if (bits === 16) return "pcm_s16le";
      throw new InvalidAudio(`${bits}-bit PCM is not supported (${SUPPORTED})`);
    case FORMAT_IEEE_FLOAT:
      if (bits === 32) return "pcm_f32le";
      throw new InvalidAudio(`${bits}-bit float is not supported (${SUPPORTED})`);
    case FORMAT_ALAW:
      if (bits === 8) return "pcm_alaw";
      throw new InvalidAudio(`${bits}-bit A-law is not supported (${SUPPORTED})`);
    case FORMAT_MULAW:
      if (bits === 8) return "pcm_mulaw";
      throw new InvalidAudio(`${bits}-bit mu-law is not supported (${SUPPORTED})`);
    default: {
      const tag = `0x${formatTag.toString(16).padStart(4, "0")}`;
      const name = FORMAT_NAMES.get(formatTag);
      throw new InvalidAudio(
        `unsupported WAV encoding: format tag ${tag}${name ? ` (${name})` : ""} (${SUPPORTED})`,
      );
    }
  }
}

function checkChannels(channels: number): void {
  if (channels < 1 || channels > 2) {
    throw new InvalidAudio(`${channels} channels are not supported: only mono or stereo`);
  }
}

function checkSampleRate(sampleRate: number): void {
  if (sampleRate < MIN_SAMPLE_RATE || sampleRate > MAX_SAMPLE_RATE) {
    throw new InvalidAudio(
      `sample rate ${sampleRate} Hz is out of range: supported rates are ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE} Hz`,
    );
  }
}

function dataLength(data: DataChunk, fileBytes: number, frameBytes: number): number {
  const present = fileBytes - data.offset;
  const declared =
    data.declaredBytes === DATA_SIZE_UNKNOWN ? present - (present % frameBytes) : data.declaredBytes;
  if (declared === 0) {
    throw new InvalidAudio("the WAV file contains no audio samples (its data chunk is empty)");
  }
  if (declared > present) {
    throw new InvalidAudio(
      `truncated: the data chunk declares ${declared} bytes but only ${present} are present`,
    );
  }
  if (declared % frameBytes !== 0) {
    throw new InvalidAudio(
      `invalid WAV file: the data chunk's ${declared} bytes are not a multiple of the block align (${frameBytes} bytes per frame)`,
    );
  }
  return declared;
}

function fourCC(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}
