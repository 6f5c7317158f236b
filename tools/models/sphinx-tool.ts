import { spawn } from "node:child_process";

/**
 * Runs a SphinxTrain or sphinxbase tool (`bw`, `sphinx_fe`, `sphinx_lm_convert`, ...) to the end;
 * its log is kept only for the error, which quotes the last five lines.
 *
 * @example
 * await runSphinxTool("sphinx_lm_convert", ["-i", "voicemail.arpa", "-o", "voicemail.lm.bin"]);
 */
export function runSphinxTool(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    const log: Buffer[] = [];
    child.stderr.on("data", (chunk: Buffer) => log.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === "ENOENT"
            ? `${command} was not found: apt-get install sphinxtrain sphinxbase-utils pocketsphinx`
            : `${command} could not be started (${error.code})`,
        ),
      ),
    );
    child.on("close", (code) => {
      if (code === 0) resolve();
      else {
        const tail = Buffer.concat(log).toString("utf8").trim().split("\n").slice(-5).join("\n");
        reject(new Error(`${command} exited with code ${code}:\n${tail}`));
      }
    });
  });
}
