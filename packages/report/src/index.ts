/**
 * @voxtrail/report: the latency report, the cost estimate and the lineage diagram, read from a
 * store's job reports and activity records, rendered as text or HTML.
 */
export { type DeployedEndpoint, type EndpointFloor, estimateCost } from "./cost/cost-estimate";
export { instanceHourPrice } from "./cost/price-table";
export { renderCostText } from "./cost/render-cost";
export { readJobs } from "./job-data";
export { buildLatencyReport, type LatencyReport } from "./latency-report";
export { lineageGraph } from "./lineage-diagram";
export { nearestRank } from "./percentiles";
export { renderHtml } from "./render-html";
export { renderText } from "./render-text";
