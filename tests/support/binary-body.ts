import type { Response } from "superagent";

/** A supertest parser that keeps the body as one Buffer (a downloaded backup, for instance). */
export function binaryBody(response: Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  response.on("data", (chunk: Buffer) => chunks.push(chunk));
  response.on("end", () => callback(null, Buffer.concat(chunks)));
}
