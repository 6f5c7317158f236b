import { writePromptsReportStage } from "../handlers/write-prompts-report";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of WritePromptsReport: no provider. */
export const handler = lambdaHandler(writePromptsReportStage, (env) => lambdaDependencies(env));
