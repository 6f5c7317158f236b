/**
 * @voxtrail/audio: WAV parsing and writing, G.711 and PCM sample codecs, downmixing, resampling and
 * the normalisation to the transcribers' 16 kHz mono PCM: what the handlers, providers, local
 * engines and benches read and write audio with.
 */
export { decodeMono16 } from "./decode-wav";
export { BYTES_PER_SAMPLE } from "./encodings";
export { encodeALaw, encodeMuLaw } from "./g711";
export { toInt16 } from "./int16";
export { DEFAULT_MAX_DURATION_MS, normalizeForTranscription, TRANSCRIPTION_FORMAT } from "./normalize";
export { resample } from "./resample";
export { decodeSamples, encodeSamples } from "./sample-codec";
export { parseWav } from "./wav-info";
export { wavHeader, writeWav } from "./wav-writer";
