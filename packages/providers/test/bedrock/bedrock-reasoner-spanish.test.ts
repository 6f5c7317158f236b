import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import type { RecordLookup, Transcript } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BedrockReasoner } from "../../src/reasoning/bedrock";
import { REASONING_SYSTEM_PROMPT } from "../../src/reasoning/transcript-prompt";
import { VOICEMAIL_TOOL_NAME } from "../../src/reasoning/voicemail-tool";
import { type ConverseServer, startConverseServer } from "./converse-server";

const NO_RECORDS: RecordLookup = {
  processor: { provider: "none", model: "none", version: "test", boundary: { kind: "local" } },
  find: async () => undefined,
};

/** A Spanish transcript, each word heard with `confidence`. */
function spanish(text: string, confidence: number): Transcript {
  return {
    text,
    words: text
      .split(/\s+/)
      .map((word, index) => ({ word, startMs: index * 300, endMs: index * 300 + 250, confidence })),
    language: "es-US",
    audioMs: 6000,
    processor: { provider: "test", model: "test", version: "test", boundary: { kind: "local" } },
  };
}

let server: ConverseServer;
let client: BedrockRuntimeClient;
let reasoner: BedrockReasoner;

beforeAll(async () => {
  server = await startConverseServer();
  client = new BedrockRuntimeClient({
    endpoint: server.url,
    region: "eu-west-1",
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
    maxAttempts: 1,
  });
  reasoner = await BedrockReasoner.create({ client, modelId: "anthropic.claude-3-5-haiku-20241022-v1:0" });
});
afterAll(async () => {
  client.destroy();
  await server.close();
});

describe("BedrockReasoner on a Spanish call", () => {
  test("asks for replyText in Spanish in one more system block, and checks Spanish number words' confidence", async () => {
    server.requests.length = 0;
    server.answerWith({
      toolUse: {
        name: VOICEMAIL_TOOL_NAME,
        input: {
          intent: "order-problem",
          entities: { orderNumber: "4271" },
          summary: "Order 4271 arrived damaged.",
          replyText: "Lamentamos que su pedido haya llegado dañado.",
        },
      },
    });
    const record = await reasoner.reason(
      spanish("Mi pedido cuatro dos siete uno llegó dañado.", 0.9),
      NO_RECORDS,
    );
    const body = server.requests[0]?.body as { system: { text: string }[] };
    expect(body.system[0]).toEqual({ text: REASONING_SYSTEM_PROMPT });
    expect(body.system[1]?.text).toMatch(/^The caller spoke Spanish \(es-US\)\. Write replyText in Spanish/);
    // The number's words were found (as Spanish number words), so its confidence is the recogniser's.
    expect(record.confidence?.orderNumber).toBe(0.9);
    expect(record.replyText).toBe("Lamentamos que su pedido haya llegado dañado.");
  });

  test("a fact held for review gets the Spanish call-back reply, not the model's", async () => {
    const record = await reasoner.reason(
      spanish("Mi pedido cuatro dos siete uno llegó dañado.", 0.05),
      NO_RECORDS,
    );
    expect(record.review?.map(({ fact }) => fact)).toContain("orderNumber");
    expect(record.replyText).toMatch(/^Hola, le habla Acme support\. .*No pudimos entender bien/);
  });

  test.each([
    ["jueves", "Quiero cambiar la cita al jueves a las tres."],
    ["el miércoles", "¿Podemos pasar la cita al miércoles por la mañana?"],
    ["Thursday", "Quiero cambiar la cita al jueves a las tres."],
  ])("finds the day the model wrote as %j where the caller said it, and holds nothing", async (day, said) => {
    server.answerWith({
      toolUse: {
        name: VOICEMAIL_TOOL_NAME,
        input: {
          intent: "reschedule",
          entities: { day },
          summary: "Wants to move the appointment.",
          replyText: "Con gusto cambiamos su cita.",
        },
      },
    });
    const record = await reasoner.reason(spanish(said, 0.9), NO_RECORDS);
    expect(record.confidence?.day).toBe(0.9);
    expect(record.review).toBeUndefined();
    expect(record.entities.day).toBe(day);
    expect(record.replyText).toBe("Con gusto cambiamos su cita.");
  });

  test("finds a number said as Spanish tens by its digits, and holds nothing", async () => {
    server.answerWith({
      toolUse: {
        name: VOICEMAIL_TOOL_NAME,
        input: {
          intent: "order-problem",
          entities: { orderNumber: "4271" },
          summary: "Order 4271 arrived damaged.",
          replyText: "Lamentamos que su pedido haya llegado dañado.",
        },
      },
    });
    const record = await reasoner.reason(
      spanish("Mi pedido cuarenta y dos setenta y uno llegó dañado.", 0.9),
      NO_RECORDS,
    );
    expect(record.confidence?.orderNumber).toBe(0.9);
    expect(record.review).toBeUndefined();
  });

  test("still holds a day the caller did not say", async () => {
    server.answerWith({
      toolUse: {
        name: VOICEMAIL_TOOL_NAME,
        input: {
          intent: "reschedule",
          entities: { day: "viernes" },
          summary: "Wants to move the appointment.",
          replyText: "Con gusto cambiamos su cita.",
        },
      },
    });
    const record = await reasoner.reason(spanish("Quiero cambiar la cita al jueves.", 0.9), NO_RECORDS);
    expect(record.review?.map(({ fact }) => fact)).toEqual(["day"]);
  });
});
