/**
 * ARPA text language models, the format SRILM, KenLM and sphinx all read: writing a model of any
 * size to a stream, and reading a small one from a string.
 */
import { once } from "node:events";
import { InvalidLanguageModel, type NgramModel, type NgramOrder } from "./ngram-model";

/** Digits after the decimal point, as sphinx writes them. */
const DECIMALS = 4;
/** Characters gathered before each write to the stream. */
const CHUNK_CHARS = 1 << 16;
const COUNT_LINE = /^ngram\s+(\d+)\s*=\s*(\d+)$/;

/**
 * Writes `model` to `out` as an ARPA file: values with 4 decimals, like sphinx; n-grams in the
 * model's order; a back-off weight on each n-gram of an order that has them. Waits whenever `out`
 * asks to drain; does not end it.
 *
 * @example
 * const file = createWriteStream("en-us.arpa");
 * await writeArpa(readSphinxTrie(await readFile("en-us.lm.bin")), file);
 * file.end();
 * await finished(file); // from node:stream/promises
 */
export async function writeArpa(model: NgramModel, out: NodeJS.WritableStream): Promise<void> {
  let chunk = "";
  for (const line of arpaLines(model)) {
    chunk += line;
    if (chunk.length >= CHUNK_CHARS) {
      const drained = out.write(chunk);
      chunk = "";
      if (!drained) await once(out, "drain");
    }
  }
  if (!out.write(chunk)) await once(out, "drain");
}

function* arpaLines({ words, orders }: NgramModel): Generator<string> {
  yield "\\data\\\n";
  for (const [index, order] of orders.entries()) yield `ngram ${index + 1}=${order.log10Prob.length}\n`;
  for (const [index, { ids, log10Prob, log10Backoff }] of orders.entries()) {
    const k = index + 1;
    yield `\n\\${k}-grams:\n`;
    for (let n = 0; n < log10Prob.length; n++) {
      let line = (log10Prob[n] ?? 0).toFixed(DECIMALS);
      for (let position = 0; position < k; position++) {
        const id = ids[n * k + position] ?? -1;
        const word = words[id];
        if (word === undefined) {
          throw new InvalidLanguageModel(`a ${k}-gram has word id ${id}, outside the ${words.length} words`);
        }
        line += `\t${word}`;
      }
      yield log10Backoff ? `${line}\t${(log10Backoff[n] ?? 0).toFixed(DECIMALS)}\n` : `${line}\n`;
    }
  }
  yield "\n\\end\\\n";
}

/**
 * Reads an ARPA language model held in a string; for tests and small models. Strict: after
 * `\data\`, the counts of orders 1..N, then a section per order, in order, holding exactly the
 * count of n-grams the header gives, made of unigram words, then `\end\`. Else it throws
 * {@link InvalidLanguageModel}, naming the line. N-grams keep the file's order; word ids are the
 * unigrams' order; a missing back-off weight is 0.
 *
 * @example
 * const model = readArpa("\\data\\\nngram 1=1\n\n\\1-grams:\n-1.0\t<unk>\n\n\\end\\\n");
 * model.orders[0]?.log10Prob[0]; // -1
 */
export function readArpa(text: string): NgramModel {
  const lines = text.split("\n");
  let line = 0;
  const invalid = (message: string) =>
    new InvalidLanguageModel(`ARPA language model, line ${line + 1}: ${message}`);
  const current = () => (lines[line] ?? "").trim();
  const skipBlankLines = () => {
    while (line < lines.length && current() === "") line++;
  };

  // Whatever precedes \data\ is commentary.
  while (line < lines.length && current() !== "\\data\\") line++;
  if (line === lines.length) throw new InvalidLanguageModel("not an ARPA language model: no \\data\\ line");
  line++;
  skipBlankLines();
  const counts: number[] = [];
  for (let match = COUNT_LINE.exec(current()); match; match = COUNT_LINE.exec(current())) {
    if (Number(match[1]) !== counts.length + 1) {
      throw invalid(`expected the count of ${counts.length + 1}-grams`);
    }
    counts.push(Number(match[2]));
    line++;
    skipBlankLines();
  }
  if (counts.length === 0) throw invalid("expected n-gram counts");

  const words: string[] = [];
  const wordIds = new Map<string, number>();
  const orders: NgramOrder[] = [];
  const number = (field: string, what: string) => {
    const value = Number(field);
    if (Number.isNaN(value)) throw invalid(`the ${what} is not a number`);
    return value;
  };
  for (const [index, count] of counts.entries()) {
    const k = index + 1;
    skipBlankLines();
    if (current() !== `\\${k}-grams:`) throw invalid(`expected the \\${k}-grams: section`);
    line++;
    const ids = new Int32Array(count * k);
    const log10Prob = new Float64Array(count);
    const log10Backoff = k < counts.length ? new Float64Array(count) : undefined;
    let n = 0;
    for (skipBlankLines(); line < lines.length && !current().startsWith("\\"); skipBlankLines()) {
      if (n === count) throw invalid(`more ${k}-grams than the ${count} the header gives`);
      const fields = current().split(/\s+/);
      if (fields.length !== k + 1 && !(log10Backoff && fields.length === k + 2)) {
        throw invalid(`a ${k}-gram line with ${fields.length} fields`);
      }
      log10Prob[n] = number(fields[0] ?? "", "probability");
      for (let position = 0; position < k; position++) {
        const word = fields[position + 1] ?? "";
        if (k === 1) {
          if (wordIds.has(word)) throw invalid("a unigram that is already in the model");
          wordIds.set(word, words.length);
          words.push(word);
        }
        const id = wordIds.get(word);
        if (id === undefined) throw invalid(`a ${k}-gram with a word that is not a unigram`);
        ids[n * k + position] = id;
      }
      const backoff = fields[k + 1];
      if (log10Backoff) log10Backoff[n] = backoff === undefined ? 0 : number(backoff, "back-off weight");
      n++;
      line++;
    }
    if (n !== count) throw invalid(`${n} ${k}-grams where the header gives ${count}`);
    orders.push({ ids, log10Prob, log10Backoff });
  }
  if (current() !== "\\end\\") throw invalid("expected \\end\\");
  return { words, orders };
}
