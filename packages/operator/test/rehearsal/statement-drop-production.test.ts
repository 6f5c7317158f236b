import { describeStatementDrop } from "./statement-drop";

// The statements dev does not deploy (its Amazon Transcribe grants: dev transcribes with Cartesia
// Ink, in the function); production's others are dev's own for its bucket and names.
describeStatementDrop({ stage: "production", only: "not-in-dev" });
