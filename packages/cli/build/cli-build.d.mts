/** Types of `cli-build.mjs`: the `voxtrail` command's JavaScript build (see there). */

/** Where the build goes (gitignored). */
export const DIST_DIR: string;

/** The entry file of the current build, or `undefined` when there is none or it is stale. */
export function currentBuild(): string | undefined;

/** Builds the CLI into {@link DIST_DIR} and resolves to the path of its entry file. */
export function buildCli(): Promise<string>;
