import { Gauge } from "@voxtrail/core";

/**
 * Synthesis streams open in this process: the load signal a Sonic endpoint scales on. Locally it
 * counts every concurrent job's stream; a Lambda instance serves one invocation at a time, so there
 * it is 0 or 1 and CloudWatch sums the emitted values across instances.
 */
export const activeSynthesisStreams = new Gauge();
