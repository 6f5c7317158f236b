import { ALL_LOCAL } from "@voxtrail/local";
import type { ProviderSelection } from "@voxtrail/workflow";

/**
 * Every stage on its embedded engine but Transcribe, whose transcriber is simulated (it hears no
 * audio; its records say `simulated`): for pipeline tests whose subject is not what was heard.
 *
 * @example
 * const runtime = await LocalRuntime.start({ storeDir, providers: SIMULATED_TRANSCRIBER });
 */
export const SIMULATED_TRANSCRIBER: ProviderSelection = { ...ALL_LOCAL, transcriber: "simulated" };

/**
 * The same choice for a spawned `voxtrail run`, as its environment.
 *
 * @example
 * await runCli(["run", file, "--store", store], SIMULATED_TRANSCRIBER_ENV);
 */
export const SIMULATED_TRANSCRIBER_ENV: Record<string, string> = { VOXTRAIL_TRANSCRIBER: "simulated" };
