/**
 * `@voxtrail/operator/doctor`: what only the AWS account can tell before a deploy of a stage
 * (`npm run doctor`), one finding per check.
 */
export { createDoctorClients, type DoctorClients } from "./clients";
export { type DoctorReport, formatFinding, runDoctor } from "./doctor";
export type { Finding, FindingStatus } from "./findings";
