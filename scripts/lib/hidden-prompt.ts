import readline from "node:readline";
import { Writable } from "node:stream";

/** Asks on the terminal without echoing what is typed (a password, a passphrase). */
export async function hiddenPrompt(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, callback) {
      if (!muted) process.stdout.write(chunk);
      callback();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  const answer = new Promise<string>((resolve) => rl.question(question, resolve));
  muted = true;
  const value = await answer;
  rl.close();
  process.stdout.write("\n");
  return value;
}
