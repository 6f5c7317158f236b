export * from "./boundary/policy-file";
export * from "./dependencies";
export * from "./events/eventbridge-publisher";
export * from "./middleware/middy";
export * from "./stage-handlers";
export * from "./state";
