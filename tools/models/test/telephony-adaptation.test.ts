import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeMixtureWeights } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adaptEachToTelephony, BUNDLED_ADAPTATIONS } from "../telephony-adaptation";

const HAVE_SPHINXTRAIN = spawnSync("/usr/lib/sphinxtrain/bw", ["-help", "yes"]).error === undefined;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxtrail-adaptation-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A little-endian sendump: a title, headers, then one byte per senone for each stream and density. */
function sendump(headers: string[], densities: number, senones: number, bytes: number[]): Buffer {
  const text = (value: string) => {
    const body = Buffer.from(`${value}\0`, "latin1");
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length);
    return Buffer.concat([length, body]);
  };
  const uint32 = (value: number) => {
    const word = Buffer.alloc(4);
    word.writeUInt32LE(value);
    return word;
  };
  return Buffer.concat([
    text("mixture weights"),
    ...headers.map(text),
    uint32(0),
    uint32(densities),
    uint32(senones),
    Buffer.from(bytes),
  ]);
}

/**
 * Where `rebuilt` first differs from `committed`, byte for byte, or "none". (`toEqual` on two
 * 800 kB buffers walks them element by element: seconds of CPU for the same verdict.)
 */
function firstDifference(rebuilt: Buffer, committed: Buffer): string {
  if (rebuilt.equals(committed)) return "none";
  let at = 0;
  while (rebuilt[at] === committed[at]) at++;
  return `byte ${at} (rebuilt: ${rebuilt.length} bytes, committed: ${committed.length})`;
}

describe("the mixture weights bw reads, from a sendump", () => {
  it("keeps the means' header and lays the weights out senone, stream, density, with a checksum", async () => {
    const header = Buffer.concat([
      Buffer.from("s3\nversion 1.0\nchksum0 yes\n      endhdr\n"),
      Buffer.from([0x44, 0x33, 0x22, 0x11]),
    ]);
    await writeFile(join(dir, "means"), Buffer.concat([header, Buffer.from("rest of the means")]));
    // 2 streams x 2 densities x 3 senones, each byte its own index.
    const bytes = Array.from({ length: 12 }, (_, index) => index);
    await writeFile(join(dir, "sendump"), sendump(["feature_count 2", "mixw_shift 10"], 2, 3, bytes));
    await writeMixtureWeights(join(dir, "sendump"), join(dir, "means"), join(dir, "mixture_weights"));

    const written = await readFile(join(dir, "mixture_weights"));
    expect(written.subarray(0, header.length)).toEqual(header);
    const words = (at: number) => written.readUInt32LE(header.length + at * 4);
    expect([words(0), words(1), words(2), words(3)]).toEqual([3, 2, 2, 12]);
    const weight = (senone: number, stream: number, density: number) =>
      written.readFloatLE(header.length + 16 + ((senone * 2 + stream) * 2 + density) * 4);
    // The byte of (stream, density, senone) sits at (stream * 2 + density) * 3 + senone.
    expect(weight(2, 1, 0)).toBeCloseTo(1.0001 ** -((1 * 2 * 3 + 2) << 10), 6);
    expect(weight(0, 0, 1)).toBeCloseTo(1.0001 ** -((1 * 3) << 10), 6);
    expect(weight(0, 0, 0)).toBe(1);
    expect(written.length).toBe(header.length + 16 + 12 * 4 + 4);
  });

  it("refuses a clustered sendump and a truncated one", async () => {
    await writeFile(join(dir, "clustered"), sendump(["feature_count 1", "cluster_count 16"], 1, 1, [0]));
    await expect(
      writeMixtureWeights(join(dir, "clustered"), join(dir, "means"), join(dir, "out")),
    ).rejects.toThrow("a clustered sendump is not supported");
    await writeFile(join(dir, "short"), sendump(["feature_count 1"], 2, 3, [0, 1]));
    await expect(
      writeMixtureWeights(join(dir, "short"), join(dir, "means"), join(dir, "out")),
    ).rejects.toThrow("the sendump is truncated");
  });
});

describe.skipIf(!HAVE_SPHINXTRAIN)(
  HAVE_SPHINXTRAIN
    ? "the bundled telephony adaptations"
    : "the bundled telephony adaptations (skipped: SphinxTrain is not installed; run scripts/setup.sh)",
  () => {
    /** Where the bundled adaptation at `index` of BUNDLED_ADAPTATIONS is rebuilt. */
    const rebuilt = (index: number) => join(dir, `rebuilt-${index}.means`);
    // Both in one run, as `npm run adapt:telephony` builds them: one set of clips for both chains of bw.
    beforeAll(async () => {
      const targets = BUNDLED_ADAPTATIONS.map(({ voices }, index) => ({ out: rebuilt(index), voices }));
      await adaptEachToTelephony(targets, { log: () => undefined });
    }, 900_000);

    it.each(BUNDLED_ADAPTATIONS.map((bundled, index) => ({ ...bundled, index })))(
      "$out is what SphinxTrain estimates from the tuning half in $voices, byte for byte",
      async ({ out: bundled, index }) => {
        expect(firstDifference(await readFile(rebuilt(index)), await readFile(bundled))).toBe("none");
      },
    );
  },
);
