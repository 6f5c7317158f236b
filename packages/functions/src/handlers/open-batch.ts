import { InvalidInput } from "@voxtrail/core";
import { BATCH_INCOMING_PREFIX, ObjectCreatedEvent, objectKeyOf } from "@voxtrail/workflow";
import { defineStage, type KernelDependencies } from "../kernel/stage-definition";
import { requireStageBucket } from "../stage-bucket";

/** Where a batch's manifest is and when it arrived: OpenBatch's output, the Map's input. Pointers only. */
interface OpenedBatch {
  bucket: string;
  /** As S3's API takes it: what the ItemReader reads. */
  key: string;
  /** The event's time: each voicemail's event time. */
  time: string;
}

/**
 * OpenBatch, the voicemail batch workflow's first step: takes the S3 "Object Created" event of a
 * manifest and answers where the manifest is, for the Map's ItemReader, ItemSelector and
 * ResultWriter: the stage's bucket (the event must name it: `requireStageBucket`), the key as S3's
 * API takes it (`objectKeyOf`: decoded from the event's form encoding, which JSONPath cannot do),
 * which must be under `incoming/batches/` (`InvalidInput` otherwise, naming the prefix, never the
 * key), and the event's time. It reads nothing and writes nothing: a batch is no job of its own
 * (each voicemail's Ingest claims its job), so no invocation is an attempt and none is recorded.
 */
export const openBatchStage = defineStage<KernelDependencies>()({
  name: "OpenBatch",
  input: ObjectCreatedEvent,
  flows: () => [],
  open: (event, { deps }) => {
    requireStageBucket(event, deps.store);
    const key = objectKeyOf(event);
    if (!key.startsWith(BATCH_INCOMING_PREFIX)) {
      throw new InvalidInput(`the manifest's key is not under ${BATCH_INCOMING_PREFIX}`);
    }
    const opened: OpenedBatch = { bucket: deps.store.bucket, key, time: event.time };
    return { done: opened };
  },
  // Every opening is done: with `carry` typed `never`, no attempt reaches this.
  run: async (_event, _attempt, carry: never) => carry,
});
