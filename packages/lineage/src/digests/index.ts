export * from "./digest-file";
export * from "./digest-signer";
export * from "./kms-signer";
export * from "./local-signer";
export * from "./verify-digests";
