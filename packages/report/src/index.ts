export * from "./format";
export * from "./job-data";
export * from "./latency-report";
export * from "./lineage-graph";
export * from "./percentiles";
export * from "./render-html";
export * from "./render-text";
export * from "./samples";
