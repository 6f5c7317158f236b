import { BYTES_PER_SAMPLE } from "@voxtrail/audio";
import type {
  ArtifactKind,
  ArtifactRef,
  AudioFormat,
  EventClock,
  ObjectStore,
  SynthesisStream,
} from "@voxtrail/core";
import { putArtifact } from "./artifacts";
import type { Activity } from "./kernel/activity-recorder";
import { activeSynthesisStreams } from "./metrics/active-streams";
import { WavSpool } from "./wav-spool";

/** What {@link storeSynthesis} needs: the stream, its format, and where its WAV goes. */
export interface SynthesisTarget {
  store: ObjectStore;
  activity: Activity;
  clock: EventClock;
  stream: SynthesisStream;
  format: AudioFormat;
  kind: ArtifactKind;
  key: string;
}

/**
 * Stores a synthesis stream as one WAV artifact: spooled to local disk as the audio arrives
 * (memory stays flat whatever its length) and put once whole, so an interrupted stream leaves no
 * artifact. Marks `stream.start` on the clock; records on the activity how many synthesis streams
 * this process had open when it began, the stream's delivery (kept on failure too: the gaps up to
 * an interruption are the interesting ones) and the output. Resolves to the artifact and the
 * audio's duration in milliseconds.
 *
 * @example
 * const { artifact, audioMs } = await storeSynthesis({ store, activity, clock, stream, format, kind: "reply-audio", key });
 */
export async function storeSynthesis(
  target: SynthesisTarget,
): Promise<{ artifact: ArtifactRef; audioMs: number }> {
  const { activity, stream, format } = target;
  // The spool's file is made while the stream's request goes out: neither waits on the other.
  const opening = WavSpool.open(format);
  opening.catch(() => undefined); // Awaited below: by the first write, and in `finally`.
  try {
    target.clock.mark("stream.start");
    activity.measures.activeStreams = activeSynthesisStreams.enter();
    try {
      for await (const chunk of stream) await (await opening).write(chunk);
    } finally {
      activeSynthesisStreams.leave();
      const delivery = stream.delivery?.();
      if (delivery) activity.measures.delivery = delivery;
    }
    const spool = await opening;
    const artifact = await putArtifact(
      target.store,
      target.kind,
      target.key,
      await spool.finish(),
      "audio/wav",
    );
    activity.outputs.push(artifact);
    return {
      artifact,
      audioMs: (spool.dataBytes / BYTES_PER_SAMPLE[format.encoding] / format.sampleRate) * 1000,
    };
  } finally {
    await (await opening.catch(() => undefined))?.discard();
  }
}
