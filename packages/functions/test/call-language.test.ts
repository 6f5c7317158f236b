import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import { LOCAL_BOUNDARY, type Transcript } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import {
  IDENTIFY_MIN_AUDIO_MS,
  languagesFromEnvironment,
  replyLanguage,
  reportLanguage,
  transcribedLanguage,
  transcriptionJobLanguage,
  transcriptionLanguage,
} from "../src/call-language";
import type { JobState } from "../src/state";
import { createStageHandlers } from "../src/workflow-handlers";
import { context, testDependencies } from "./stage-dependencies";

const execution = {
  id: "arn:aws:states:us-east-1:000000000000:execution:vm:1",
  startTime: "2026-01-01T00:00:01.500Z",
};

function objectCreated(bucket: string, key: string) {
  return {
    source: "aws.s3",
    "detail-type": "Object Created",
    time: "2026-01-01T00:00:01.000Z",
    detail: { bucket: { name: bucket }, object: { key } },
  };
}

function telephonyTone(): Uint8Array {
  const samples = new Int16Array(8000).map((_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
  );
  return writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(samples));
}

/** Ingests `key` (a second of tone) under a stage taking `languages`. */
async function ingest(key: string, languages?: readonly string[]) {
  const { deps } = await testDependencies(languages ? { languages } : {});
  await deps.store.put(key, telephonyTone(), { contentType: "audio/wav" });
  const handlers = createStageHandlers(deps);
  return {
    deps,
    run: () => handlers.ingest({ event: objectCreated(deps.store.bucket, key), execution }, context),
  };
}

describe("the languages a stage takes (VOXTRAIL_LANGUAGES)", () => {
  it("reads a comma-separated list of tags with regions, and nothing when unset", () => {
    expect(languagesFromEnvironment({ VOXTRAIL_LANGUAGES: "en-US, es-US" })).toEqual({
      languages: ["en-US", "es-US"],
    });
    expect(languagesFromEnvironment({})).toEqual({});
  });

  it("refuses a value that is not tags with regions, by name", () => {
    expect(() => languagesFromEnvironment({ VOXTRAIL_LANGUAGES: "en,spanish" })).toThrow(
      expect.objectContaining({ name: "InvalidInput", message: expect.stringMatching(/"en"/) }),
    );
  });
});

describe("a call's language, found by Ingest", () => {
  it("is not in the job state of a stage that names no languages: English calls are unchanged", async () => {
    const job = (await (await ingest("incoming/voicemail/a.wav")).run()) as JobState;
    expect(job).not.toHaveProperty("language");
  });

  it("comes from a language folder in the key", async () => {
    const job = (await (
      await ingest("incoming/voicemail/es-us/a.wav", ["en-US", "es-US"])
    ).run()) as JobState;
    expect(job.language).toBe("es-US");
  });

  it("is the stage's only language when nothing else says, and unknown among several", async () => {
    const only = (await (await ingest("incoming/voicemail/a.wav", ["es-US"])).run()) as JobState;
    expect(only.language).toBe("es-US");
    const several = (await (await ingest("incoming/voicemail/a.wav", ["en-US", "es-US"])).run()) as JobState;
    expect(several).not.toHaveProperty("language");
  });

  it("fails CallLanguageUnsupported for a language the stage does not take", async () => {
    const { run } = await ingest("incoming/voicemail/fr-FR/a.wav", ["en-US", "es-US"]);
    await expect(run()).rejects.toMatchObject({
      name: "CallLanguageUnsupported",
      message: expect.stringContaining('"fr-FR" is not one this deployment takes (en-US, es-US)'),
    });
  });
});

describe("the language a call is transcribed in", () => {
  it("is the job's, else the stage's language where the stage names no list", () => {
    expect(transcriptionLanguage({ language: "es-US" }, { language: "en", languages: ["es-US"] })).toBe(
      "es-US",
    );
    expect(transcriptionLanguage({}, { language: "en" })).toBe("en");
  });

  it("is CallLanguageUnknown among several with a transcriber that cannot identify it", async () => {
    const { deps, run } = await ingest("incoming/voicemail/a.wav", ["en-US", "es-US"]);
    deps.transcriber = {
      processor: { provider: "t", model: "t", version: "0", boundary: LOCAL_BOUNDARY },
      transcribe: async (): Promise<Transcript> => {
        throw new Error("not reached");
      },
    };
    const job = await run();
    await expect(createStageHandlers(deps).transcribe(job, context)).rejects.toMatchObject({
      name: "CallLanguageUnknown",
      message: expect.stringContaining("incoming/en-US/"),
    });
  });
});

describe("the language a reply is spoken in", () => {
  const synthesizer = (languages?: readonly string[]) => ({
    processor: { provider: "flite-endpoint", model: "t", version: "0", boundary: LOCAL_BOUNDARY },
    ...(languages ? { languages } : {}),
  });

  it("is the transcript's primary language, as Sonic takes it", () => {
    const job = { language: "es-US", transcribe: { language: "es-US" } };
    expect(replyLanguage(job, { language: "en", synthesizer: synthesizer(["en", "es"]) })).toBe("es");
    expect(replyLanguage({}, { language: "en", synthesizer: synthesizer(["en"]) })).toBe("en");
  });

  it("is SynthesizerLanguageUnsupported where the synthesizer does not speak it, never English instead", () => {
    expect(() =>
      replyLanguage(
        { transcribe: { language: "es-US" } },
        { language: "en", synthesizer: synthesizer(["en"]) },
      ),
    ).toThrow(
      expect.objectContaining({
        name: "SynthesizerLanguageUnsupported",
        message: expect.stringContaining('"es" is not one flite-endpoint speaks (en)'),
      }),
    );
  });
});

describe("a transcription job's language (Amazon Transcribe)", () => {
  const stage = { language: "en", languages: ["en-US", "es-US"] };

  it("is the call's when known, and the stage's language where it names no list", () => {
    expect(transcriptionJobLanguage({ language: "es-US", audioMs: 5000 }, stage)).toEqual({
      language: "es-US",
    });
    expect(transcriptionJobLanguage({ audioMs: 5000 }, { language: "en" })).toEqual({ language: "en" });
  });

  it("is identified among the stage's languages for a call of at least 30 s", () => {
    expect(transcriptionJobLanguage({ audioMs: IDENTIFY_MIN_AUDIO_MS }, stage)).toEqual({
      language: "en-US",
      languageOptions: ["en-US", "es-US"],
    });
  });

  it("is CallLanguageUnknown for a shorter call: never identified on too little speech", () => {
    expect(() => transcriptionJobLanguage({ audioMs: 12_400 }, stage)).toThrow(
      expect.objectContaining({
        name: "CallLanguageUnknown",
        message: expect.stringContaining("the call lasts 12 s, shorter than the 30 s of speech"),
      }),
    );
  });

  it("read back: the identified language when the stage takes it, CallLanguageUnsupported otherwise", () => {
    expect(transcribedLanguage({}, stage, { languageCode: "es-US" })).toBe("es-US");
    expect(() => transcribedLanguage({}, stage, { languageCode: "fr-FR" })).toThrow(
      expect.objectContaining({ name: "CallLanguageUnsupported" }),
    );
    expect(transcribedLanguage({ language: "en-US" }, stage, { languageCode: "es-US" })).toBe("en-US");
  });

  it("goes in the job report: the transcription's, else the job's, else nothing", () => {
    expect(reportLanguage({ language: "en-US", transcribe: { language: "es-US" } })).toEqual({
      language: "es-US",
    });
    expect(reportLanguage({ language: "en-US" })).toEqual({ language: "en-US" });
    expect(reportLanguage({})).toEqual({});
  });
});
