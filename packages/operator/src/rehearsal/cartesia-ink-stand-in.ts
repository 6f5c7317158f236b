import { createHash } from "node:crypto";
import type { Transcriber, Transcript } from "@voxtrail/core";
import { PocketsphinxTranscriber } from "@voxtrail/providers";
import { type CartesiaApiServer, sendJson, startCartesiaApiServer } from "./cartesia-api-server";

/**
 * A stand-in for Cartesia's speech-to-text API (`POST /stt`, multipart, Cartesia's JSON answer
 * with word times), backed by the embedded recognizer (Debian pocketsphinx), as the local Sonic
 * endpoint is backed by flite: the Transcribe function's Cartesia Ink client runs unchanged and
 * gets real words. It answers only the key the stage's linked secret holds, so the rehearsal
 * shows that the secret reached the function. Labelled for what it is: pocketsphinx (or the
 * `recognizer` given), not Ink.
 *
 * @example
 * const ink = await startCartesiaInkStandIn("sk_rehearsal");
 * // redirect api.cartesia.ai to ink.url in the Transcribe function's environments
 */
export async function startCartesiaInkStandIn(
  apiKey: string,
  recognizer: Transcriber = new PocketsphinxTranscriber(),
): Promise<CartesiaApiServer> {
  const server = await startCartesiaApiServer();
  // The same audio gets the same words: recognized once (the rehearsal uploads one voicemail per run).
  const recognized = new Map<string, Promise<Transcript>>();
  server.respondWith(async (request, response) => {
    if (request.method !== "POST" || !request.path.startsWith("/stt")) {
      sendJson(response, 404, { message: "not served by the rehearsal's stand-in" });
      return;
    }
    const key = request.headers["x-api-key"] ?? request.headers.authorization?.replace(/^Bearer /, "");
    if (key !== apiKey) {
      sendJson(response, 401, { message: "invalid API key" });
      return;
    }
    if (!request.file) {
      sendJson(response, 400, { message: "no file" });
      return;
    }
    const language = request.fields.language?.[0] ?? "en";
    const digest = createHash("sha256").update(request.file.bytes).update(language).digest("hex");
    if (!recognized.has(digest))
      recognized.set(digest, recognizer.transcribe(request.file.bytes, { language }));
    const transcript = await (recognized.get(digest) as Promise<Transcript>);
    sendJson(response, 200, {
      type: "transcript",
      text: transcript.text,
      language: transcript.language,
      duration: transcript.audioMs / 1000,
      words: transcript.words.map((word) => ({
        word: word.word,
        start: word.startMs / 1000,
        end: word.endMs / 1000,
      })),
    });
  });
  return server;
}
