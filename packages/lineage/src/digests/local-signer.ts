import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
  randomUUID,
  sign,
} from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { promisify } from "node:util";
import { type DigestSigner, fingerprintOf, isP256, SigningKeyInvalid } from "./digest-signer";

/**
 * Where the local signing key lives: `$VOXTRAIL_SIGNING_KEY`, else
 * `$XDG_CONFIG_HOME/voxtrail/lineage-signing-key.pem`, else
 * `~/.config/voxtrail/lineage-signing-key.pem`. Never inside the store: whoever can write the
 * store must not be able to reach the key that vouches for it.
 *
 * @example
 * const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
 */
export function defaultSigningKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VOXTRAIL_SIGNING_KEY) return env.VOXTRAIL_SIGNING_KEY;
  // The XDG base directory specification ignores a relative XDG_CONFIG_HOME.
  const configHome =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(configHome, "voxtrail", "lineage-signing-key.pem");
}

/** A P-256 private key in a PEM file (PKCS#8), for stores without KMS: `voxtrail run`'s. */
export class LocalSigner implements DigestSigner {
  readonly algorithm = "ECDSA_SHA_256";
  readonly keyId: string;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  readonly #fingerprint: string;

  private constructor(privateKey: KeyObject) {
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey);
    this.#fingerprint = fingerprintOf(this.#publicKey);
    this.keyId = `local:${this.#fingerprint}`;
  }

  /**
   * The key at `path`, created if there is none: a fresh P-256 key written with mode 0600 in a
   * directory created with mode 0700. The file appears whole or not at all (written aside, then
   * hard-linked into place), and of processes creating it at once one wins and the others use its
   * key. A file that is not a P-256 private key rejects with {@link SigningKeyInvalid}.
   *
   * @example
   * const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
   * signer.keyId; // "local:3f1c…"
   */
  static async loadOrCreate(path: string): Promise<LocalSigner> {
    const existing = await readKeyFile(path);
    if (existing !== undefined) return new LocalSigner(parseKey(existing, path));
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const { privateKey } = await promisify(generateKeyPair)("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ format: "pem", type: "pkcs8" });
    const aside = `${path}.${randomUUID()}.tmp`;
    try {
      await writeFile(aside, pem, { mode: 0o600, flag: "wx", flush: true });
      // Unlike rename, link never replaces: the first process to link wins.
      await link(aside, path);
      return new LocalSigner(privateKey);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      return new LocalSigner(parseKey(await readFile(path, "utf8"), path));
    } finally {
      await rm(aside, { force: true });
    }
  }

  async fingerprint(): Promise<string> {
    return this.#fingerprint;
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    return sign("sha256", message, { key: this.#privateKey, dsaEncoding: "der" });
  }

  async publicKey(): Promise<KeyObject> {
    return this.#publicKey;
  }
}

/** The file's text, or `undefined` when there is no file. */
async function readKeyFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The P-256 private key in `pem`; the errors name `path` and what is wrong, never the key. */
function parseKey(pem: string, path: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new SigningKeyInvalid(`the signing key file ${path} does not hold a PEM private key`);
  }
  if (!isP256(key)) {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    throw new SigningKeyInvalid(
      `the signing key file ${path} is not an ECDSA P-256 private key ` +
        `(its key type is ${key.asymmetricKeyType}${curve ? ` on curve ${curve}` : ""})`,
    );
  }
  return key;
}
