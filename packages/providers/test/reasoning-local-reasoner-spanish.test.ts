import type { Transcript } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { systemBlocksFor } from "../src/reasoning/bedrock-language";
import { LocalReasoner } from "../src/reasoning/local-reasoner";
import { REPLY_TEMPLATES } from "../src/reasoning/reply-templates";
import { REPLY_TEMPLATES_ES } from "../src/reasoning/reply-templates-es";
import { readSpanish } from "../src/reasoning/spanish-reading";
import { SYSTEM_BLOCKS } from "../src/reasoning/transcript-prompt";
import { RECORDS, transcript } from "./local-reasoning";

/** A Spanish transcript, one word per token with the recogniser's confidence. */
function spanish(text: string, confidence = 0.95, language = "es-US"): Transcript {
  const words = text.split(/\s+/).map((word, index) => ({
    word,
    startMs: index * 300,
    endMs: index * 300 + 250,
    confidence,
  }));
  return { ...transcript(text), words, language };
}

const reasoner = new LocalReasoner();

describe("LocalReasoner in Spanish", () => {
  test("a damaged order said in Spanish number words: found, and answered in Spanish", async () => {
    const record = await reasoner.reason(
      spanish(
        "Hola, soy María López. Llamo por el pedido número cuatro dos siete uno. Llegó dañado. " +
          "Por favor devuélvanme la llamada al cinco cinco cinco uno dos tres cuatro cinco seis siete.",
      ),
      RECORDS,
    );
    expect(record).toMatchObject({
      intent: "order-problem",
      entities: { callerName: "Maria Lopez", orderNumber: "4271", callbackNumber: "5551234567" },
      match: { outcome: "found", matchedOn: "orderNumber" },
      replyText:
        "Hola Maria, le habla Acme support sobre el pedido 4271. Lamentamos que haya llegado dañado; le enviamos un reemplazo.",
      reply: { template: "order-problem/damaged/matched" },
    });
    expect(record.review).toBeUndefined();
    expect(record.confidence?.orderNumber).toBe(0.95);
  });

  test("a reschedule with a day and a time: the reply names them in Spanish", async () => {
    const record = await reasoner.reason(
      spanish(
        "Buenos días, habla David Chen, cuenta siete siete dos cero. Quiero cambiar mi cita al jueves a las tres y media.",
      ),
      RECORDS,
    );
    expect(record).toMatchObject({
      intent: "reschedule",
      entities: { accountNumber: "7720", day: "Thursday", time: "3:30" },
      match: { outcome: "found", matchedOn: "accountNumber" },
    });
    expect(record.replyText).toBe(
      "Hola David, le habla Acme support sobre la cuenta 7720. Anotamos su solicitud de cambiar su cita al jueves a las 3:30; le confirmaremos la nueva hora en breve.",
    );
  });

  test("tens and units ('cincuenta y cuatro') and a number unsure enough to be held: asks again, in Spanish", async () => {
    expect(readSpanish(spanish("pedido cincuenta y cuatro")).text).toBe("order fifty four");
    const record = await reasoner.reason(
      spanish("Quiero cancelar el pedido cinco cero tres cuatro.", 0.1),
      RECORDS,
    );
    expect(record.review?.map(({ fact }) => fact)).toContain("orderNumber");
    expect(record.replyText).toMatch(
      /^Hola, le habla Acme support\. .*No pudimos entender bien .*su número de pedido/,
    );
  });

  test("English transcripts are read as before, and another language fails named", async () => {
    const english = await reasoner.reason(transcript("Please cancel order 5034."), RECORDS);
    expect(english.replyText).toMatch(/^Hi Tom, this is Acme support about order 5034\./);
    await expect(
      reasoner.reason({ ...transcript("Bonjour"), language: "fr-FR" }, RECORDS),
    ).rejects.toMatchObject({
      name: "ReasonerLanguageUnsupported",
      message: expect.stringContaining('"fr-FR"'),
    });
  });

  test("every reply has a Spanish text with the same promises and facts", () => {
    for (const [id, template] of Object.entries(REPLY_TEMPLATES)) {
      const es = REPLY_TEMPLATES_ES[id as keyof typeof REPLY_TEMPLATES];
      expect(es).toMatchObject({
        id,
        matchedOnly: template.matchedOnly,
        claimsAction: template.claimsAction,
      });
      expect(es.render("Acme", { orderNumber: "1", day: "Friday", time: "9:00" })).toMatch(/^Hola/);
    }
  });

  test("the Bedrock prompt: unchanged for English, one more block naming the language otherwise", () => {
    expect(systemBlocksFor("en-US")).toBe(SYSTEM_BLOCKS);
    expect(systemBlocksFor("es-US").at(-1)?.text).toMatch(
      /^The caller spoke Spanish \(es-US\)\. Write replyText in Spanish/,
    );
  });
});
