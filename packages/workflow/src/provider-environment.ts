/**
 * Environment variables that choose providers (Lambda functions read them; `voxtrail run` sets the
 * same choices from its flags). Choices default to `local`.
 */
export const PROVIDER_ENVIRONMENT = {
  transcriber: "VOXTRAIL_TRANSCRIBER",
  reasoner: "VOXTRAIL_REASONER",
  synthesizer: "VOXTRAIL_SYNTHESIZER",
  records: "VOXTRAIL_RECORDS",
  recordsUri: "VOXTRAIL_RECORDS_URI",
  sonicEndpoint: "VOXTRAIL_SONIC_ENDPOINT",
  sonicModel: "VOXTRAIL_SONIC_MODEL",
  sonicModelVersion: "VOXTRAIL_SONIC_MODEL_VERSION",
  voiceId: "VOXTRAIL_VOICE_ID",
  bedrockModelId: "VOXTRAIL_BEDROCK_MODEL_ID",
  cartesiaTtsModel: "VOXTRAIL_CARTESIA_TTS_MODEL",
  cartesiaSttModel: "VOXTRAIL_CARTESIA_STT_MODEL",
  transcribeJobPrefix: "VOXTRAIL_TRANSCRIBE_JOB_PREFIX",
  transcribeDataAccessRoleArn: "VOXTRAIL_TRANSCRIBE_DATA_ACCESS_ROLE_ARN",
  cartesiaBaseUrl: "CARTESIA_BASE_URL",
  cartesiaApiKey: "CARTESIA_API_KEY",
} as const;
