import type { Transcript, TranscriptWord } from "@voxtrail/core";

/**
 * Spanish phrases, accents and case dropped, and the English words the local reasoner's rules
 * read them as: the number words ("cuatro dos siete uno", "cincuenta y cinco", "veintiuno"), the
 * days and times ("el jueves a las tres y media de la tarde"), the words and phrases that name each
 * request (cancelar, llegó dañado, no ha llegado, la factura, reprogramar la cita, devuélvanme la
 * llamada) and the caller's introduction (soy, me llamo, mi nombre es). Longest phrase first; a
 * word no phrase names is kept as it is (a name, a numeral, a word no rule reads). An empty list
 * drops the words: "y" between a tens word and a digit, an article before a number.
 */
const PHRASES: ReadonlyArray<readonly [string, string]> = [
  // The caller's introduction and call-back requests.
  ["me llamo", "my name is"],
  ["mi nombre es", "my name is"],
  ["le habla", "this is"],
  ["habla", "this is"],
  ["soy", "this is"],
  ["devuelvanme la llamada", "call me back"],
  ["devuelvame la llamada", "call me back"],
  ["devolverme la llamada", "call me back"],
  ["devuelvan la llamada", "call me back"],
  ["regresen la llamada", "call me back"],
  ["regresenme la llamada", "call me back"],
  ["llamenme", "call me back"],
  ["llameme", "call me back"],
  ["llamame", "call me back"],
  ["llamarme", "call me back"],
  ["me pueden llamar", "call me back"],
  ["llamando", "calling"],
  ["llamo", "calling"],
  // References.
  ["numero de pedido", "order number"],
  ["numero de orden", "order number"],
  ["numero de cuenta", "account number"],
  ["numero de telefono", "phone number"],
  ["mi numero es", "my number is"],
  ["pedido", "order"],
  ["orden", "order"],
  ["cuenta", "account"],
  ["numero", "number"],
  ["telefono", "phone"],
  // Order problems.
  ["no ha llegado", "never arrived"],
  ["no han llegado", "never arrived"],
  ["nunca llego", "never arrived"],
  ["no llego", "never arrived"],
  ["todavia no llega", "never arrived"],
  ["producto equivocado", "wrong item"],
  ["articulo equivocado", "wrong item"],
  ["talla equivocada", "wrong size"],
  ["color equivocado", "wrong color"],
  ["equivocado", "wrong item"],
  ["equivocada", "wrong item"],
  ["llego", "arrived"],
  ["danado", "damaged"],
  ["danada", "damaged"],
  ["danados", "damaged"],
  ["roto", "broken"],
  ["rota", "broken"],
  ["quebrado", "broken"],
  ["defectuoso", "defective"],
  ["paquete", "package"],
  ["entrega", "delivery"],
  ["reemplazo", "replacement"],
  ["devolucion", "return"],
  ["falta", "missing"],
  // Cancellations.
  ["ya no lo necesito", "no longer need it"],
  ["ya no la necesito", "no longer need it"],
  ["cancelacion", "cancel"],
  ["cancelar", "cancel"],
  ["cancelen", "cancel"],
  ["cancele", "cancel"],
  ["cancela", "cancel"],
  ["suscripcion", "subscription"],
  // Reschedules.
  ["reprogramar", "reschedule"],
  ["reagendar", "reschedule"],
  ["posponer", "postpone"],
  ["cambiar la cita", "change the appointment"],
  ["cambiar mi cita", "change my appointment"],
  ["mover la cita", "move the appointment"],
  ["cita", "appointment"],
  ["cambiarla", "move it"],
  ["moverla", "move it"],
  ["cambiar", "change"],
  ["mover", "move"],
  ["en vez", "instead"],
  // Billing.
  ["cobraron de mas", "overcharged"],
  ["cobro de mas", "overcharged"],
  ["cobraron dos veces", "overcharged"],
  ["factura", "bill"],
  ["cobraron", "charged"],
  ["cobro", "charge"],
  ["cargo", "charge"],
  ["cargos", "charges"],
  ["pago", "payment"],
  ["reembolso", "refund"],
  ["tarjeta", "card"],
  ["recibo", "receipt"],
  // Days and times.
  ["pasado manana", "day after tomorrow"],
  ["de la manana", "am"],
  ["de la tarde", "pm"],
  ["de la noche", "pm"],
  ["medio dia", "noon"],
  ["mediodia", "noon"],
  ["a las", "at"],
  ["a la", "at"],
  ["y media", "thirty"],
  ["y cuarto", "fifteen"],
  ["en punto", "o'clock"],
  ["manana", "tomorrow"],
  ["lunes", "monday"],
  ["martes", "tuesday"],
  ["miercoles", "wednesday"],
  ["jueves", "thursday"],
  ["viernes", "friday"],
  ["sabado", "saturday"],
  ["domingo", "sunday"],
  ["no el", "not"],
  // Number words, said one digit at a time or in pairs.
  ["cero", "zero"],
  ["uno", "one"],
  ["dos", "two"],
  ["tres", "three"],
  ["cuatro", "four"],
  ["cinco", "five"],
  ["seis", "six"],
  ["siete", "seven"],
  ["ocho", "eight"],
  ["nueve", "nine"],
  ["diez", "ten"],
  ["once", "eleven"],
  ["doce", "twelve"],
  ["trece", "thirteen"],
  ["catorce", "fourteen"],
  ["quince", "fifteen"],
  ["dieciseis", "sixteen"],
  ["diecisiete", "seventeen"],
  ["dieciocho", "eighteen"],
  ["diecinueve", "nineteen"],
  ["veinte", "twenty"],
  ["veintiuno", "twenty one"],
  ["veintidos", "twenty two"],
  ["veintitres", "twenty three"],
  ["veinticuatro", "twenty four"],
  ["veinticinco", "twenty five"],
  ["veintiseis", "twenty six"],
  ["veintisiete", "twenty seven"],
  ["veintiocho", "twenty eight"],
  ["veintinueve", "twenty nine"],
  ["treinta", "thirty"],
  ["cuarenta", "forty"],
  ["cincuenta", "fifty"],
  ["sesenta", "sixty"],
  ["setenta", "seventy"],
  ["ochenta", "eighty"],
  ["noventa", "ninety"],
  ["doble", "double"],
  ["triple", "triple"],
  // Function words the English rules know, and Spanish ones that would read as English digits.
  ["por favor", "please"],
  ["gracias", "thanks"],
  ["hola", "hi"],
  ["buenos dias", "hello"],
  ["buenas tardes", "hello"],
  ["sobre", "about"],
  ["acerca", "about"],
  ["por", "about"],
  ["de", "from"],
  ["del", "from"],
  ["con", "with"],
  ["mi", "my"],
  ["el", "the"],
  ["la", "the"],
  ["los", "the"],
  ["las", "the"],
  ["un", "a"],
  ["una", "a"],
  ["y", "and"],
  ["o", "or"],
  // "para" is "for", which the English rules hear as the digit 4.
  ["para", "so"],
  ["que", "that"],
  ["es", "is"],
];

const TENS = new Set(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]);
const UNITS = new Set(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]);

/** Phrases by their first word, longest first. */
const BY_FIRST_WORD: ReadonlyMap<string, ReadonlyArray<{ words: string[]; english: string[] }>> = (() => {
  const map = new Map<string, { words: string[]; english: string[] }[]>();
  for (const [spanish, english] of PHRASES) {
    const words = spanish.split(" ");
    const first = words[0] as string;
    const list = map.get(first) ?? [];
    if (!list.some((entry) => entry.words.join(" ") === spanish))
      list.push({ words, english: english.split(" ") });
    map.set(first, list);
  }
  for (const list of map.values()) list.sort((a, b) => b.words.length - a.words.length);
  return map;
})();

/**
 * Lower-case word tokens of Spanish text, accents dropped ("dañado" -> "danado", "¿Llegó?" ->
 * "llego"); clock times keep their colon.
 */
export function spanishTokens(text: string): string[] {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9':]+/)
    .map((token) => token.replace(/^[':]+|[':]+$/g, ""))
    .filter((token) => token.length > 0);
}

/** A heard token: the word, and the recogniser's place and confidence for it. */
type Heard = Omit<TranscriptWord, "word"> & { token: string };

/**
 * The English reading of a Spanish transcript, for the local reasoner's rules (which read English
 * words): each Spanish phrase of {@link PHRASES} becomes its English words, every other word stays,
 * and each English word keeps the place and the lowest confidence of the Spanish words it came
 * from, so a fact's confidence is still the recogniser's. "y" between a tens word and a unit is
 * dropped ("cincuenta y cinco" -> "fifty five"). Only the rules read it: the reply is written in
 * Spanish ({@link REPLY_TEMPLATES_ES}), and the record keeps the transcript as heard.
 *
 * @example
 * readSpanish(transcript).text; // for "Soy María, mi pedido cuatro dos siete uno llegó dañado"
 * // "this is maria my order four two seven one arrived damaged"
 */
export function readSpanish(transcript: Transcript): Transcript {
  const heard: Heard[] =
    transcript.words.length > 0
      ? transcript.words.flatMap(({ word, ...place }) =>
          spanishTokens(word).map((token) => ({ token, ...place })),
        )
      : untimed(transcript.text);
  const read = readHeard(heard);
  return { ...transcript, text: read.map(({ word }) => word).join(" "), words: read };
}

/**
 * The English reading of a short Spanish text, as {@link readSpanish} reads the same words in a
 * transcript: what a fact a model wrote in Spanish ("jueves", "el jueves") is looked for as in
 * that reading.
 *
 * @example
 * readSpanishText("el miércoles"); // "the wednesday"
 */
export function readSpanishText(text: string): string {
  return readHeard(untimed(text))
    .map(({ word }) => word)
    .join(" ");
}

function untimed(text: string): Heard[] {
  return spanishTokens(text).map((token) => ({ token, startMs: 0, endMs: 0 }));
}

/** Each phrase of the heard tokens as its English words, with the place and confidence it came from. */
function readHeard(heard: readonly Heard[]): TranscriptWord[] {
  const words: TranscriptWord[] = [];
  for (let index = 0; index < heard.length; ) {
    const phrase = BY_FIRST_WORD.get(heard[index]?.token ?? "")?.find((candidate) =>
      candidate.words.every((word, offset) => heard[index + offset]?.token === word),
    );
    const span = heard.slice(index, index + (phrase?.words.length ?? 1));
    index += span.length;
    const english = phrase?.english ?? [span[0]?.token as string];
    const confidences = span.flatMap(({ confidence }) => (confidence === undefined ? [] : [confidence]));
    const place = {
      startMs: span[0]?.startMs ?? 0,
      endMs: span.at(-1)?.endMs ?? 0,
      ...(confidences.length > 0 ? { confidence: Math.min(...confidences) } : {}),
    };
    for (const word of english) words.push({ word, ...place });
  }
  return words.filter(
    (word, index) =>
      !(
        word.word === "and" &&
        TENS.has(words[index - 1]?.word ?? "") &&
        UNITS.has(words[index + 1]?.word ?? "")
      ),
  );
}
