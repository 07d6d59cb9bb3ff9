import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { renderToPipeableStream } from "react-dom/server";
import { ServerRouter, type AppLoadContext, type EntryContext } from "react-router";
import { NonceProvider } from "./components/nonce-provider";

export const streamTimeout = 5_000;

/**
 * Renders a document. It always waits for all content (onAllReady), so the
 * HTML is complete: readable without JavaScript, and cacheable as a whole.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const nonce = loadContext.cspNonce;

  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        // Every Suspense boundary is complete when the page is sent (onAllReady): write each
        // one in place. React would otherwise move large ones (a gallery) into a hidden block
        // that only a script reveals, which leaves visitors without JavaScript with placeholders.
        progressiveChunkSize: Number.POSITIVE_INFINITY,
        onAllReady() {
          settled = true;
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (settled) loadContext.services.logger.error({ err: error }, "error while streaming a page");
        },
      },
    );
    setTimeout(abort, streamTimeout + 1000).unref();
  });
}
