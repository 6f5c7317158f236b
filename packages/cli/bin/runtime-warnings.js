/**
 * Notices about the runtime itself are not for the user of a command: the AWS SDK's Node-version
 * notice (Lambda runs Node 22; this CLI supports 20.19+, see package.json engines). Every other
 * warning is printed as Node prints it.
 */
export function quietRuntimeWarnings() {
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name === "NodeVersionSupportWarning" || /NodeVersionSupportWarning/.test(warning.message))
      return;
    process.stderr.write(`${warning.name}: ${warning.message}\n`);
  });
}
