import { describeStatementDrop } from "./statement-drop";

// Every statement dev deploys.
describeStatementDrop({ stage: "dev" });
