export { type FailureContext, toSynthesisError } from "./synthesis/sagemaker-errors";
export type { WordTiming } from "./synthesis/sonic-events";
export {
  type SonicSageMakerOptions,
  SonicSageMakerSynthesizer,
  SonicSynthesisStream,
} from "./synthesis/sonic-sagemaker";
