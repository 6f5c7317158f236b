/**
 * The mixture weights of a pocketsphinx model as SphinxTrain's `bw` reads them. Debian's
 * pocketsphinx-en-us ships only `sendump` (the weights quantised to 8-bit negative logs, as
 * pocketsphinx loads them), while `bw` wants `mixture_weights` (Sphinx-3 binary, float32, with a
 * checksum). This is the conversion SphinxTrain's `python/cmusphinx/sendump.py` does (Python 2,
 * and it writes no checksum), with the header of the model's own `means` file.
 */
import { readFile, writeFile } from "node:fs/promises";

/** A Sphinx-3 binary header ends here; the byte-order word (0x11223344) follows. */
const END_OF_HEADER = "endhdr\n";
const BYTE_ORDER_MARK = 0x11223344;

/**
 * Writes `out` (`mixture_weights`) from the model's `sendump`, with the header of its `means`
 * (version 1.0, checksummed).
 *
 * @example
 * await writeMixtureWeights(`${model}/sendump`, `${model}/means`, `${work}/hmm/mixture_weights`);
 */
export async function writeMixtureWeights(
  sendumpFile: string,
  meansFile: string,
  out: string,
): Promise<void> {
  const { weights, senones, streams, densities } = readSendump(await readFile(sendumpFile));
  const means = await readFile(meansFile);
  const headerEnd = means.indexOf(END_OF_HEADER) + END_OF_HEADER.length;
  if (headerEnd < END_OF_HEADER.length || means.readUInt32LE(headerEnd) !== BYTE_ORDER_MARK) {
    throw new Error(`${meansFile} is not a little-endian Sphinx-3 parameter file`);
  }
  // The dimensions, the count, then the weights [senone][stream][density]; the checksum covers all.
  const body = Buffer.alloc(16 + weights.length * 4);
  body.writeUInt32LE(senones, 0);
  body.writeUInt32LE(streams, 4);
  body.writeUInt32LE(densities, 8);
  body.writeUInt32LE(weights.length, 12);
  Buffer.from(weights.buffer, weights.byteOffset, weights.byteLength).copy(body, 16);
  let checksum = 0;
  for (let offset = 0; offset < body.length; offset += 4) {
    checksum = (((checksum << 20) | (checksum >>> 12)) + body.readUInt32LE(offset)) >>> 0;
  }
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32LE(checksum);
  await writeFile(out, Buffer.concat([means.subarray(0, headerEnd + 4), body, trailer]));
}

/** The weights of a `sendump`, as probabilities, in `mixture_weights` order. */
function readSendump(bytes: Buffer): {
  weights: Float32Array;
  senones: number;
  streams: number;
  densities: number;
} {
  let offset = 0;
  const littleEndian = bytes.readUInt32LE(0) <= 65_536;
  const uint32 = () => {
    const value = littleEndian ? bytes.readUInt32LE(offset) : bytes.readUInt32BE(offset);
    offset += 4;
    return value;
  };
  // Length-prefixed, NUL-terminated strings: a title, then "name value" headers up to an empty one.
  const text = () => {
    const length = uint32();
    const value = bytes.subarray(offset, offset + Math.max(0, length - 1)).toString("latin1");
    offset += length;
    return length === 0 ? undefined : value;
  };
  text();
  const header = new Map<string, number>();
  for (let line = text(); line !== undefined; line = text()) {
    const [name = "", value = ""] = line.split(/\s+/);
    header.set(name, Number(value));
  }
  const streams = header.get("feature_count") ?? 0;
  const shift = header.get("mixw_shift") ?? 10;
  if ((header.get("cluster_count") ?? 0) !== 0) throw new Error("a clustered sendump is not supported");
  // Unclustered: the sizes follow the headers (whose counts, if any, say the same).
  const densities = uint32();
  const senones = uint32();
  if (offset + streams * densities * senones > bytes.length) throw new Error("the sendump is truncated");
  const weights = new Float32Array(senones * streams * densities);
  // Stored per stream and density, one byte per senone: -log base 1.0001, shifted down.
  for (let stream = 0; stream < streams; stream++) {
    for (let density = 0; density < densities; density++) {
      for (let senone = 0; senone < senones; senone++) {
        const quantised = bytes[offset++] ?? 0;
        weights[(senone * streams + stream) * densities + density] = 1.0001 ** -(quantised << shift);
      }
    }
  }
  return { weights, senones, streams, densities };
}
