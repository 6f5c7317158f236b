import * as z from "zod/mini";

/** Sample encodings Cartesia Sonic can produce (`output_format.encoding`). */
export const AudioEncoding = z.enum(["pcm_s16le", "pcm_f32le", "pcm_mulaw", "pcm_alaw"]);
export type AudioEncoding = z.infer<typeof AudioEncoding>;

/** Raw audio format: encoding, sample rate and channel count. */
export const AudioFormat = z.object({
  encoding: AudioEncoding,
  sampleRate: z.number().check(z.int(), z.gte(8000), z.lte(48000)),
  channels: z._default(z.literal(1), 1),
});
export type AudioFormat = z.infer<typeof AudioFormat>;
