import { describe, expect, it } from "vitest";
import { parseWav } from "../src/index";
import { invalidAudioMessage } from "./invalid-audio";
import {
  ascii,
  chunk,
  concat,
  extensibleFmtBody,
  type FmtFields,
  fmtBody,
  int16Bytes,
  pcm16Wav,
  riff,
  STANDARD_GUID_TAIL,
  unpaddedChunk,
} from "./riff";

const MONO_16: FmtFields = { tag: 1, channels: 1, sampleRate: 8000, bits: 16 };

function wav(fields: FmtFields, data: Uint8Array): Uint8Array {
  return riff([chunk("fmt ", fmtBody(fields)), chunk("data", data)]);
}

describe("parseWav: accepted files", () => {
  it("reads a canonical 16-bit mono PCM file", () => {
    const info = parseWav(pcm16Wav([1, 2, 3, 4], 16000));
    expect(info).toEqual({
      encoding: "pcm_s16le",
      sampleRate: 16000,
      channels: 1,
      bitsPerSample: 16,
      dataOffset: 44,
      dataBytes: 8,
      durationMs: 0.25,
    });
  });

  it.each([
    { tag: 3, bits: 32, encoding: "pcm_f32le" },
    { tag: 6, bits: 8, encoding: "pcm_alaw" },
    { tag: 7, bits: 8, encoding: "pcm_mulaw" },
  ] as const)(
    "reads format tag $tag as $encoding (18-byte fmt and a fact chunk)",
    ({ tag, bits, encoding }) => {
      const fields = { tag, channels: 1, sampleRate: 8000, bits };
      const bytes = riff([
        chunk("fmt ", fmtBody(fields, true)),
        chunk("fact", Uint8Array.of(80, 0, 0, 0)),
        chunk("data", new Uint8Array((80 * bits) / 8)),
      ]);
      expect(parseWav(bytes)).toEqual({
        encoding,
        sampleRate: 8000,
        channels: 1,
        bitsPerSample: bits,
        dataOffset: 58,
        dataBytes: (80 * bits) / 8,
        durationMs: 10,
      });
    },
  );

  it("reads stereo and counts its duration in frames", () => {
    const info = parseWav(wav({ ...MONO_16, channels: 2, sampleRate: 48000 }, new Uint8Array(48000 * 4)));
    expect(info.channels).toBe(2);
    expect(info.durationMs).toBe(1000);
  });

  it("accepts every rate from 8000 to 48000 Hz, including odd ones", () => {
    for (const sampleRate of [8000, 11025, 22050, 44100, 47999, 48000]) {
      expect(parseWav(pcm16Wav([0], sampleRate)).sampleRate).toBe(sampleRate);
    }
  });

  it("skips LIST and unknown chunks and honours the pad byte after odd-sized ones", () => {
    const bytes = riff([
      chunk("LIST", ascii("INFOx")), // 5 bytes + 1 pad byte
      chunk("fmt ", fmtBody(MONO_16)),
      chunk("junk", ascii("abc")), // 3 bytes + 1 pad byte
      chunk("data", int16Bytes([7, -7])),
    ]);
    const info = parseWav(bytes);
    expect(info.dataOffset).toBe(12 + 14 + 24 + 12 + 8);
    expect(info.dataBytes).toBe(4);
    expect(Array.from(bytes.subarray(info.dataOffset, info.dataOffset + 4))).toEqual([7, 0, 0xf9, 0xff]);
  });

  describe("an odd-sized chunk before the data", () => {
    const samples = int16Bytes([7, -7, 300]);
    const padded = riff([
      chunk("fmt ", fmtBody(MONO_16)),
      chunk("LIST", ascii("INFOx")), // 5 bytes + 1 pad byte
      chunk("data", samples),
    ]);
    const unpadded = riff([
      chunk("fmt ", fmtBody(MONO_16)),
      unpaddedChunk("LIST", ascii("INFOx")), // 5 bytes, the pad byte left out
      chunk("data", samples),
    ]);

    function samplesOf(bytes: Uint8Array): number[] {
      const info = parseWav(bytes);
      return Array.from(bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes));
    }

    it("is read as before when its pad byte is there", () => {
      expect(parseWav(padded)).toMatchObject({ dataOffset: 12 + 24 + 14 + 8, dataBytes: 6 });
      expect(samplesOf(padded)).toEqual(Array.from(samples));
    });

    it("is read without its pad byte, with the same samples", () => {
      expect(unpadded.length).toBe(padded.length - 1);
      expect(parseWav(unpadded)).toMatchObject({ dataOffset: 12 + 24 + 13 + 8, dataBytes: 6 });
      expect(samplesOf(unpadded)).toEqual(Array.from(samples));
    });

    it.each([
      ["fmt ", [unpaddedChunk("junk", ascii("abc")), chunk("fmt ", fmtBody(MONO_16))]],
      [
        "fact",
        [
          chunk("fmt ", fmtBody(MONO_16)),
          unpaddedChunk("junk", ascii("abc")),
          chunk("fact", new Uint8Array(4)),
        ],
      ],
      [
        "LIST",
        [chunk("fmt ", fmtBody(MONO_16)), unpaddedChunk("junk", ascii("abc")), chunk("LIST", ascii("INFO"))],
      ],
    ])("is read without its pad byte before a %s chunk", (_, chunks) => {
      expect(samplesOf(riff([...chunks, chunk("data", samples)]))).toEqual(Array.from(samples));
    });

    it("keeps the pad byte when it is a printable byte and a chunk follows it", () => {
      const bytes = riff([
        chunk("fmt ", fmtBody(MONO_16)),
        chunk("LIST", ascii("INFOx")),
        chunk("data", samples),
      ]);
      bytes[12 + 24 + 13] = "x".charCodeAt(0); // "xdat" would also look like a chunk id
      expect(samplesOf(bytes)).toEqual(Array.from(samples));
    });
  });

  it("accepts an odd-length 8-bit data chunk and the pad byte after it", () => {
    const bytes = riff([
      chunk("fmt ", fmtBody({ tag: 7, channels: 1, sampleRate: 8000, bits: 8 }, true)),
      chunk("data", new Uint8Array(3)),
      chunk("LIST", ascii("INFO")),
    ]);
    expect(bytes.length % 2).toBe(0);
    expect(parseWav(bytes).dataBytes).toBe(3);
  });

  it.each([
    { tag: 1, bits: 16, channels: 2, encoding: "pcm_s16le" },
    { tag: 3, bits: 32, channels: 1, encoding: "pcm_f32le" },
    { tag: 7, bits: 8, channels: 1, encoding: "pcm_mulaw" },
  ] as const)(
    "reads WAVE_FORMAT_EXTENSIBLE with subformat $tag as $encoding",
    ({ tag, bits, channels, encoding }) => {
      const fields = { tag, channels, sampleRate: 16000, bits };
      const bytes = riff([chunk("fmt ", extensibleFmtBody(fields)), chunk("data", new Uint8Array(16))]);
      expect(parseWav(bytes)).toMatchObject({ encoding, channels, bitsPerSample: bits, dataOffset: 68 });
    },
  );

  it("trusts the chunks, not the RIFF size", () => {
    const samples = int16Bytes([1, 2, 3]);
    const chunks = [chunk("fmt ", fmtBody(MONO_16)), chunk("data", samples)];
    expect(parseWav(riff(chunks, { riffSize: 0xfffffff0 })).dataBytes).toBe(6);
    expect(parseWav(riff(chunks, { riffSize: 4 })).dataBytes).toBe(6);
  });

  it("reads a data size of 0xFFFFFFFF as 'to the end of the file', in whole frames", () => {
    const bytes = riff([chunk("fmt ", fmtBody(MONO_16)), chunk("data", new Uint8Array(11), 0xffffffff)]);
    // chunk() pads the 11 bytes to 12, so 12 bytes follow the header: 6 frames.
    expect(parseWav(bytes).dataBytes).toBe(12);
    expect(parseWav(bytes.subarray(0, bytes.length - 1)).dataBytes).toBe(10);
  });

  it("uses the first fmt chunk and ignores chunks after the data", () => {
    const bytes = riff([
      chunk("fmt ", fmtBody(MONO_16)),
      chunk("fmt ", fmtBody({ ...MONO_16, tag: 0x55 })),
      chunk("data", int16Bytes([1])),
      chunk("data", new Uint8Array(1000), 0xfffffff0),
    ]);
    expect(parseWav(bytes)).toMatchObject({ encoding: "pcm_s16le", dataOffset: 68, dataBytes: 2 });
  });

  it("reads a view into a larger buffer at an odd offset", () => {
    const file = pcm16Wav([1, 2]);
    const backing = new Uint8Array(file.length + 3);
    backing.set(file, 1);
    expect(parseWav(backing.subarray(1, 1 + file.length))).toMatchObject({ dataOffset: 44, dataBytes: 4 });
  });
});

describe("parseWav: rejected files", () => {
  const cases: Array<[string, Uint8Array, string]> = [
    ["an empty file", new Uint8Array(0), "the audio file is empty (0 bytes)"],
    [
      "a file shorter than a RIFF header",
      ascii("RIFF\u0000"),
      "too short to be a WAV file: 5 bytes, less than the 12-byte RIFF/WAVE header",
    ],
    ["text", ascii("hello, this is not audio at all"), "not a WAV file: expected a RIFF/WAVE header"],
    [
      "an MP3 with an ID3 tag",
      concat([ascii("ID3"), new Uint8Array(40)]),
      "not a WAV file: expected a RIFF/WAVE header",
    ],
    [
      "a RIFF file of another form",
      riff([], { form: "AVI " }),
      "not a WAV file: expected a RIFF/WAVE header",
    ],
    [
      "a big-endian RIFX file",
      concat([ascii("RIFX"), new Uint8Array(4), ascii("WAVE")]),
      "big-endian (RIFX) WAV files are not supported",
    ],
    [
      "an RF64 file",
      concat([ascii("RF64"), new Uint8Array(4), ascii("WAVE")]),
      "RF64 WAV files are not supported",
    ],
    [
      "a file without a fmt chunk",
      riff([chunk("data", int16Bytes([1, 2]))]),
      "invalid WAV file: it has no fmt chunk (format description)",
    ],
    [
      "a header with nothing after it",
      riff([]),
      "invalid WAV file: it has no fmt chunk (format description)",
    ],
    [
      "a file without a data chunk",
      riff([chunk("fmt ", fmtBody(MONO_16)), chunk("LIST", ascii("INFO"))]),
      "invalid WAV file: it has no data chunk",
    ],
    [
      "a file without a data chunk after an odd-sized chunk without its pad byte",
      riff([chunk("fmt ", fmtBody(MONO_16)), unpaddedChunk("LIST", ascii("INFOx"))]),
      "invalid WAV file: it has no data chunk",
    ],
    [
      "a file whose bytes after an odd-sized chunk are no chunk, padded or not",
      riff([
        chunk("fmt ", fmtBody(MONO_16)),
        unpaddedChunk("LIST", ascii("INFOx")),
        Uint8Array.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
      ]),
      "invalid WAV file: it has no data chunk",
    ],
    [
      "an empty data chunk",
      wav(MONO_16, new Uint8Array(0)),
      "the WAV file contains no audio samples (its data chunk is empty)",
    ],
    [
      "a truncated data chunk",
      riff([chunk("fmt ", fmtBody(MONO_16)), chunk("data", new Uint8Array(100), 16000)]),
      "truncated: the data chunk declares 16000 bytes but only 100 are present",
    ],
    [
      "a data chunk one byte short",
      riff([
        chunk("fmt ", fmtBody({ tag: 7, channels: 1, sampleRate: 8000, bits: 8 })),
        chunk("data", new Uint8Array(100), 101),
      ]),
      "truncated: the data chunk declares 101 bytes but only 100 are present",
    ],
    [
      "a data chunk that is not a whole number of frames",
      wav({ ...MONO_16, channels: 2 }, new Uint8Array(6)),
      "invalid WAV file: the data chunk's 6 bytes are not a multiple of the block align (4 bytes per frame)",
    ],
    [
      "8-bit PCM",
      wav({ ...MONO_16, bits: 8 }, new Uint8Array(4)),
      "8-bit PCM is not supported (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "24-bit PCM",
      wav({ ...MONO_16, bits: 24 }, new Uint8Array(6)),
      "24-bit PCM is not supported (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "64-bit float",
      wav({ ...MONO_16, tag: 3, bits: 64 }, new Uint8Array(8)),
      "64-bit float is not supported (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "16-bit mu-law",
      wav({ ...MONO_16, tag: 7 }, new Uint8Array(4)),
      "16-bit mu-law is not supported (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "16-bit A-law",
      wav({ ...MONO_16, tag: 6 }, new Uint8Array(4)),
      "16-bit A-law is not supported (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "IMA ADPCM",
      wav({ ...MONO_16, tag: 0x11, bits: 4 }, new Uint8Array(4)),
      "unsupported WAV encoding: format tag 0x0011 (IMA ADPCM) (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "an unknown format tag",
      wav({ ...MONO_16, tag: 0x1234 }, new Uint8Array(4)),
      "unsupported WAV encoding: format tag 0x1234 (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "a non-standard extensible subformat",
      riff([
        chunk(
          "fmt ",
          extensibleFmtBody(
            MONO_16,
            STANDARD_GUID_TAIL.map((byte) => byte ^ 1),
          ),
        ),
        chunk("data", new Uint8Array(4)),
      ]),
      "unsupported WAV encoding: a non-standard WAVE_FORMAT_EXTENSIBLE subformat (supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)",
    ],
    [
      "an extensible fmt chunk without its GUID",
      riff([chunk("fmt ", extensibleFmtBody(MONO_16).subarray(0, 18)), chunk("data", new Uint8Array(4))]),
      "invalid WAV file: the WAVE_FORMAT_EXTENSIBLE fmt chunk is 18 bytes, shorter than the 40 it needs",
    ],
    [
      "a fmt chunk too short for a format",
      riff([chunk("fmt ", new Uint8Array(14)), chunk("data", new Uint8Array(4))]),
      "invalid WAV file: the fmt chunk is 14 bytes, shorter than the 16 a format needs",
    ],
    [
      "a file cut inside its fmt chunk",
      riff([chunk("fmt ", fmtBody(MONO_16))]).subarray(0, 30),
      "truncated: the fmt chunk declares 16 bytes but only 10 are present",
    ],
    [
      "three channels",
      wav({ ...MONO_16, channels: 3 }, new Uint8Array(6)),
      "3 channels are not supported: only mono or stereo",
    ],
    [
      "zero channels",
      wav({ ...MONO_16, channels: 0 }, new Uint8Array(2)),
      "0 channels are not supported: only mono or stereo",
    ],
    [
      "a rate below 8 kHz",
      wav({ ...MONO_16, sampleRate: 7999 }, new Uint8Array(2)),
      "sample rate 7999 Hz is out of range: supported rates are 8000 to 48000 Hz",
    ],
    [
      "a rate above 48 kHz",
      wav({ ...MONO_16, sampleRate: 96000 }, new Uint8Array(2)),
      "sample rate 96000 Hz is out of range: supported rates are 8000 to 48000 Hz",
    ],
  ];

  it.each(cases)("rejects %s with InvalidAudio and a clear message", (_, bytes, message) => {
    expect(invalidAudioMessage(() => parseWav(bytes))).toBe(message);
  });

  it("never quotes the file's contents in its messages", () => {
    const secret = "CALLER SAYS ACCOUNT 4242";
    const files = [
      ascii(`${secret} and some more words`),
      riff([chunk("LIST", ascii(secret)), chunk("data", ascii(secret))]),
      riff([chunk("fmt ", fmtBody(MONO_16)), chunk("LIST", ascii(secret))]),
      riff([chunk("fmt ", fmtBody({ ...MONO_16, tag: 0x4143 })), chunk("data", ascii(secret))]),
      riff([chunk(secret.slice(0, 4), ascii(secret))], { form: secret.slice(4, 8) }),
    ];
    for (const file of files) {
      const message = invalidAudioMessage(() => parseWav(file));
      for (const word of secret.split(" ")) expect(message).not.toContain(word);
    }
  });
});
