import type { CheckedFact, FactReview } from "@voxtrail/core";
import type { Reply } from "./reply";
import {
  REPLY_TEMPLATES,
  type ReplyFactValues,
  type ReplyTemplate,
  type ReplyTemplateId,
} from "./reply-templates";
import { UNSURE_TEMPLATE } from "./reply-unsure";

/** The days as the entity reader writes them ("Thursday"), in Spanish. */
const DIAS: Readonly<Record<string, string>> = {
  Monday: "el lunes",
  Tuesday: "el martes",
  Wednesday: "el miércoles",
  Thursday: "el jueves",
  Friday: "el viernes",
  Saturday: "el sábado",
  Sunday: "el domingo",
};

const LLAMENOS_CON_EL_NUMERO = "por favor, llámenos con el número de su confirmación.";

/**
 * The Spanish text of each reply the local reasoner can write, by the same id as
 * {@link REPLY_TEMPLATES}: the same promises (only a template for a matched record promises), and
 * the same facts, so the reply's provenance names the same template whichever the language.
 */
const TEXTS: { readonly [Id in ReplyTemplateId]: (business: string, facts: ReplyFactValues) => string } = {
  "order-problem/damaged/matched": (b, f) =>
    `${saludo(b, f)} Lamentamos que haya llegado dañado; le enviamos un reemplazo.`,
  "order-problem/not-arrived/matched": (b, f) =>
    `${saludo(b, f)} Lamentamos que no haya llegado; lo estamos rastreando y le informaremos hoy.`,
  "order-problem/wrong-item/matched": (b, f) =>
    `${saludo(b, f)} Lamentamos haberle enviado el artículo equivocado; el correcto va en camino, con una etiqueta para devolver el otro.`,
  "order-problem/unspecified/matched": (b, f) =>
    `${saludo(b, f)} Lamentamos que haya un problema con su pedido; lo estamos revisando y le llamaremos hoy.`,
  "order-problem/any/unmatched": (b) =>
    `Hola, le habla ${b}. Gracias por avisarnos del problema con su pedido. No pudimos saber de qué pedido se trata; ` +
    "por favor, llámenos con el número de pedido de su confirmación.",
  "reschedule/matched": (b, f) => {
    const cuando = toSlot(f);
    return `${saludo(b, f)} ${
      cuando
        ? `Anotamos su solicitud de cambiar su cita ${cuando}; le confirmaremos la nueva hora en breve.`
        : "Recibimos su solicitud de cambiar la cita; le llamaremos para buscar una nueva hora."
    }`;
  },
  "reschedule/unmatched": (b, f) => {
    const cuando = toSlot(f);
    return (
      `Hola, le habla ${b}. Gracias por su mensaje; entendimos que quiere ` +
      `${cuando ? `cambiar su cita ${cuando}` : "cambiar su cita"}. ` +
      `No encontramos su reserva con este mensaje; ${LLAMENOS_CON_EL_NUMERO}`
    );
  },
  "billing/matched": (b, f) =>
    `${saludo(b, f)} Estamos revisando los cargos de su factura y le responderemos en un día hábil.`,
  "billing/unmatched": (b) =>
    `Hola, le habla ${b}. Gracias por su mensaje sobre su factura. No pudimos saber de qué cuenta se trata; ` +
    "por favor, llámenos con el número de cuenta de su factura.",
  "cancellation/matched": (b, f) =>
    `${saludo(b, f)} Recibimos su solicitud de cancelación y se la confirmaremos en breve.`,
  "cancellation/unmatched": (b) =>
    `Hola, le habla ${b}. Gracias por su mensaje; entendimos que quiere cancelar. No pudimos saber de qué ` +
    `pedido o cuenta se trata; ${LLAMENOS_CON_EL_NUMERO}`,
  "callback-request/matched": (b, f) => `${saludo(b, f)} Le devolvemos la llamada: ¿en qué podemos ayudarle?`,
  "callback-request/unmatched": (b) =>
    `Hola, le habla ${b}. Le devolvemos la llamada: ¿en qué podemos ayudarle?`,
  "other/matched": (b, f) =>
    `${saludo(b, f)} Gracias por su mensaje; alguien de nuestro equipo le llamará en breve.`,
  "other/unmatched": (b) =>
    `Hola, le habla ${b}. Gracias por su mensaje; si podemos ayudarle en algo, por favor, llámenos.`,
  "not-found-reference": (b, { orderNumber, accountNumber }) => {
    const referencia = orderNumber ? `el pedido ${orderNumber}` : `la cuenta ${accountNumber}`;
    return `Hola, le habla ${b}, devolviendo su llamada. No encontramos ${referencia} en nuestros registros; ${LLAMENOS_CON_EL_NUMERO}`;
  },
  "no-message": (b) =>
    `Hola, le habla ${b}. No pudimos atender su llamada; por favor, llámenos si podemos ayudarle en algo.`,
};

/** The Spanish replies: each of {@link REPLY_TEMPLATES} with its text in Spanish. */
export const REPLY_TEMPLATES_ES: { readonly [Id in ReplyTemplateId]: ReplyTemplate<Id> } = Object.fromEntries(
  Object.entries(REPLY_TEMPLATES).map(([id, template]) => [
    id,
    { ...template, render: TEXTS[id as ReplyTemplateId] },
  ]),
) as { readonly [Id in ReplyTemplateId]: ReplyTemplate<Id> };

/** How the Spanish reply names a fact it could not make out. */
const NOMBRES: Readonly<Record<CheckedFact, string>> = {
  intent: "lo que necesita",
  orderNumber: "su número de pedido",
  accountNumber: "su número de cuenta",
  callbackNumber: "el número para devolverle la llamada",
  day: "el día que pidió",
};

/**
 * {@link unsureReply} in Spanish: it says what could not be made out, asks for a call back, and
 * states no fact.
 */
export function unsureReplyEs(held: readonly Pick<FactReview, "fact">[], business: string): Reply {
  const names = [...new Set(held.map(({ fact }) => NOMBRES[fact]))];
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} y ${names.at(-1)}` : names[0];
  return {
    text:
      `Hola, le habla ${business}. Gracias por su mensaje. No pudimos entender bien ${list}; ` +
      "por favor, llámenos para que podamos atenderle correctamente.",
    provenance: { template: UNSURE_TEMPLATE, facts: [] },
  };
}

/** "Hola María, le habla Acme support sobre el pedido 4271." */
function saludo(
  business: string,
  { customerFirstName, orderNumber, accountNumber }: ReplyFactValues,
): string {
  const name = customerFirstName ? ` ${customerFirstName}` : "";
  const sobre = orderNumber
    ? ` sobre el pedido ${orderNumber}`
    : accountNumber
      ? ` sobre la cuenta ${accountNumber}`
      : "";
  return `Hola${name}, le habla ${business}${sobre}.`;
}

/** "al jueves a las 3:30" ("a" + "el" is "al"), or "a las 3:30": the slot a cita moves to. */
function toSlot(facts: ReplyFactValues): string | undefined {
  const cuando = slot(facts);
  if (cuando === undefined) return undefined;
  return cuando.startsWith("el ") ? `al ${cuando.slice(3)}` : `a ${cuando}`;
}

/** "el jueves a las 3:30", or whichever of the two is known. */
function slot({ day, time }: ReplyFactValues): string | undefined {
  const dia = day === undefined ? undefined : (DIAS[day] ?? day);
  const hora = time === undefined ? undefined : `las ${time}`;
  if (dia && hora) return `${dia} a ${hora}`;
  return dia ?? hora;
}
