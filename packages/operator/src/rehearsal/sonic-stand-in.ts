import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { type SpeechEngine, startSonicEndpoint } from "@voxtrail/local";

/** A Sonic voice id the stand-in rejects as Sonic rejects input it cannot speak (422 `ModelError`). */
export const REJECTED_VOICE_ID = "00000000-0000-4000-8000-000000000422";

/** What one request asked the stand-in to speak: its text and `language` (absent: English). */
export interface SonicAsked {
  transcript: string;
  language?: string;
}

/**
 * The Sonic endpoint the rehearsal's functions stream from: the local flite endpoint behind
 * SageMaker's wire format (packages/local; espeak-ng for `language: "es"`), and a second one that
 * answers every request with SageMaker's `ModelError` (`OriginalStatusCode` 422), chosen for
 * requests that name {@link REJECTED_VOICE_ID}, so a prompts job has one prompt that fails as a bad
 * request would, and its failure path (RecordPromptFailure) runs under its own role. `engine`
 * speaks English instead of flite when given (a run whose subject is the permissions, not what was
 * said). `asked` keeps what each request asked, in memory only, for the rehearsal's checks.
 *
 * @example
 * const sonic = await startSonicStandIn();
 * upstreams.sagemaker = sonic.url;
 */
export async function startSonicStandIn(engine?: SpeechEngine) {
  const speaking = await startSonicEndpoint(engine ? { engine } : {});
  const rejecting = await startSonicEndpoint({
    ...(engine ? { engine } : {}),
    faults: { modelError: { originalStatus: 422, requests: Number.MAX_SAFE_INTEGER } },
  });
  const asked: SonicAsked[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const request = askedIn(body);
      if (request) asked.push(request);
      const rejected = body.includes(REJECTED_VOICE_ID);
      const target = new URL(incoming.url ?? "/", rejected ? rejecting.url : speaking.url);
      const outgoing = httpRequest(
        target,
        { method: incoming.method, headers: incoming.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      outgoing.on("error", () => response.destroy());
      outgoing.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await speaking.close();
      await rejecting.close();
    },
  };
}

/** The text and language a SageMaker invocation's body (Sonic's JSON request) asks for; none if it is not one. */
function askedIn(body: Buffer): SonicAsked | undefined {
  try {
    const { transcript, language } = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    if (typeof transcript !== "string") return undefined;
    return { transcript, ...(typeof language === "string" ? { language } : {}) };
  } catch {
    return undefined;
  }
}
