export * from "./job-id";
export * from "./key-layout";
export * from "./rule-pattern";
export * from "./stage-resources";
export * from "./stages";
export * from "./voicemail-definition";
