import type { ToolConfiguration } from "@aws-sdk/client-bedrock-runtime";
import { Entities, Intent } from "@voxtrail/core";
import * as z from "zod/mini";
import { describe } from "zod/v4/core";

/** The tool the model must call: its input is the structured record of the voicemail. */
export const VOICEMAIL_TOOL_NAME = "record_voicemail";

/** What the model must return, checked with zod; its JSON Schema is the tool's input schema. */
export const ModelVoicemailRecord = z.strictObject({
  intent: Intent.check(describe("What the caller wants.")),
  entities: z
    .strictObject(Entities.shape)
    .check(
      describe(
        "Details the caller gave. Numbers as digits only. A later correction replaces the earlier value. Omit what was not said.",
      ),
    ),
  summary: z
    .string()
    .check(z.minLength(1), describe("One or two sentences for the team, in the third person.")),
  replyText: z
    .string()
    .check(
      z.minLength(1),
      describe("A short spoken reply to the caller (at most two sentences), promising nothing about money."),
    ),
});
export type ModelVoicemailRecord = z.infer<typeof ModelVoicemailRecord>;

/** The JSON Schema of {@link ModelVoicemailRecord}, without the `$schema` URI Bedrock does not need. */
function inputSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(ModelVoicemailRecord) as Record<string, unknown>;
  return schema;
}

/**
 * Converse's `toolConfig`: one tool, and `toolChoice` naming it, so the model must answer with the
 * record rather than with free text. (A specific `toolChoice` needs a model that supports it, e.g.
 * Anthropic Claude, Amazon Nova, Mistral Large.)
 */
export const VOICEMAIL_TOOL_CONFIG: ToolConfiguration = {
  tools: [
    {
      toolSpec: {
        name: VOICEMAIL_TOOL_NAME,
        description:
          "Records the voicemail: the caller's intent, the details they gave, a summary and a reply.",
        inputSchema: { json: inputSchema() as never },
      },
    },
  ],
  toolChoice: { tool: { name: VOICEMAIL_TOOL_NAME } },
};
