/** One input of the capacity model: its value and why it is that value. */
export interface CapacityParameter {
  value: number;
  unit: string;
  why: string;
}

/** The inputs of the capacity model that no AWS page or stage file gives. */
export interface CapacityParameters {
  /** Mean length of a voicemail's audio. */
  averageVoicemailSeconds: CapacityParameter;
  /** How long an Amazon Transcribe batch job holds its slot, per second of audio. */
  transcribeJobSecondsPerAudioSecond: CapacityParameter;
  /** How long Sonic takes to generate one reply, holding one of an instance's generation slots. */
  sonicGenerationSeconds: CapacityParameter;
  /** Replies one Sonic instance generates at once. */
  generationsPerInstance: CapacityParameter;
  /** The busiest hour's rate over the day's mean rate. */
  peakToMeanRate: CapacityParameter;
  /** Lambda execution seconds one voicemail uses across its stages. */
  lambdaSecondsPerVoicemail: CapacityParameter;
  /** Step Functions state transitions of one voicemail whose Transcribe job's event comes within its first wait. */
  stateTransitions: CapacityParameter;
}

/**
 * The capacity model's defaults, each with its reason. None is measured on AWS (nothing here can
 * run there): replace them with a load rehearsal's figures when there are some.
 *
 * @example
 * DEFAULT_CAPACITY_PARAMETERS.generationsPerInstance.value; // 4
 */
export const DEFAULT_CAPACITY_PARAMETERS: CapacityParameters = {
  averageVoicemailSeconds: {
    value: 30,
    unit: "s",
    why: "the bundled fixtures average 17 s; 30 s leaves room for longer real voicemails (unmeasured)",
  },
  transcribeJobSecondsPerAudioSecond: {
    value: 1,
    unit: "s per audio s",
    why: "AWS publishes no batch job time; a job holding its slot as long as its audio is a round guess",
  },
  sonicGenerationSeconds: {
    value: 3,
    unit: "s",
    why: "Cartesia's hardware page gives a real-time factor of 0.2 at 8 streams per L40S; a reply of about 15 s of audio",
  },
  generationsPerInstance: {
    value: 4,
    unit: "replies at once",
    why: "the Sonic 3.6 JumpStart README's 429 section: at most 4 generations per container (its setup says 10, Cartesia's hardware page 8)",
  },
  peakToMeanRate: {
    value: 4,
    unit: "x",
    why: "a day's voicemails arriving within about 6 business hours: 24 / 6",
  },
  lambdaSecondsPerVoicemail: {
    value: 8,
    unit: "s",
    why: "Synthesize holds its function for the generation (3 s), plus about 1 s each for Ingest, the Transcribe start and read, Reason and Finalize",
  },
  stateTransitions: {
    value: 9,
    unit: "transitions",
    why: "docs/benchmarks.md counts 6 per voicemail without a Transcribe job; its start, wait and read states add 3",
  },
};
