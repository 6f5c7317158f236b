import { type ObjectStore, systemErrorMeaning } from "@voxtrail/core";
import { defaultSigningKeyPath, LocalSigner, writeDigest } from "@voxtrail/lineage";

/**
 * Signs the lineage a local run wrote: the next digest over the jobs' summaries, with the local
 * P-256 key (created on first use at `defaultSigningKeyPath()`, outside the store, so that someone
 * who can write the store cannot sign), and says so on `out`. Signing that fails is reported there
 * by its error's name and message (never key material), and the run's outcome stands.
 *
 * @example
 * await signLineage(runtime.store, process.stderr);
 */
export async function signLineage(store: ObjectStore, out: NodeJS.WritableStream): Promise<void> {
  try {
    const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
    const written = await writeDigest(store, signer);
    const fingerprint = (await signer.fingerprint()).slice(0, 16);
    out.write(
      written
        ? `lineage signed: ${written.key} covers ${written.jobs} job(s), key ${fingerprint}\n`
        : `lineage signed already: no job to add to the digests (key ${fingerprint})\n`,
    );
  } catch (error) {
    // A failed system call by its meaning (DiskFull, ...), never with the path Node puts in its message.
    const { name, message } =
      systemErrorMeaning(error) ?? (error instanceof Error ? error : new Error(String(error)));
    out.write(`lineage NOT signed: ${name}: ${message}\n`);
  }
}
