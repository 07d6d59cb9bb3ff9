import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { parseMail, type ParsedMail } from "./mime";
import { freePort } from "./test-server";

/**
 * A real SMTP server (npm smtp-server) for tests: it receives what our mail
 * adapter sends and keeps every message. It can be stopped and started again
 * on the same port (SMTP "down"), require a password, and hold a message's
 * acceptance back (a send in progress).
 */

export type ReceivedMail = ParsedMail & {
  raw: string;
  envelope: { from: string; to: string[] };
  /** Whether the session was encrypted (STARTTLS or TLS) when the message came in. */
  secure: boolean;
  user: string | null;
};

export type TestSmtpServer = {
  host: string;
  port: number;
  /** smtp://[user:pass@]host:port */
  url: string;
  messages: ReceivedMail[];
  /** Every AUTH attempt, and every session's commands as far as they got. */
  authAttempts: { username: string | undefined; secure: boolean }[];
  mailFromCount: number;
  /** Resolves once `count` messages have arrived (fails after `timeoutMs`). */
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The next message's acceptance waits until `release()` (the data has arrived by then). */
  holdNext(): { arrived: Promise<void>; release(): void };
  stop(): Promise<void>;
  /** Listens again on the same port, with the same settings. */
  start(): Promise<void>;
  readonly running: boolean;
};

export async function startSmtpServer(
  options: {
    host?: string;
    port?: number;
    auth?: { user: string; pass: string };
    /** No STARTTLS at all (an old server, or an attacker stripping it from the conversation). */
    noStartTls?: boolean;
    tls?: { key: string; cert: string };
  } = {},
): Promise<TestSmtpServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? (await freePort());
  const messages: ReceivedMail[] = [];
  const authAttempts: TestSmtpServer["authAttempts"] = [];
  const waiters = new Set<() => void>();
  let hold: { arrived: () => void; released: Promise<void> } | null = null;
  let server: SMTPServer | null = null;
  const state = { mailFromCount: 0 };

  const serverOptions: SMTPServerOptions = {
    logger: false,
    disableReverseLookup: true,
    authOptional: !options.auth,
    allowInsecureAuth: true,
    disabledCommands: options.noStartTls ? ["STARTTLS"] : [],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    onAuth(auth, session, callback) {
      authAttempts.push({ username: auth.username, secure: Boolean(session.secure) });
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
        callback(null, { user: auth.username });
        return;
      }
      callback(Object.assign(new Error("Authentication credentials invalid"), { responseCode: 535 }));
    },
    onMailFrom(_address, _session, callback) {
      state.mailFromCount += 1;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const held = hold;
        hold = null;
        if (held) {
          held.arrived();
          await held.released;
        }
        messages.push({
          ...parseMail(raw),
          raw,
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          },
          secure: Boolean(session.secure),
          user: typeof session.user === "string" ? session.user : null,
        });
        for (const wake of waiters) wake();
        callback();
      });
    },
  };

  const listen = async () => {
    const next = new SMTPServer(serverOptions);
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, host, () => resolve());
    });
    next.on("error", () => {});
    server = next;
  };
  await listen();

  const auth = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@` : "";
  return {
    host,
    port,
    url: `smtp://${auth}${host.includes(":") ? `[${host}]` : host}:${port}`,
    messages,
    authAttempts,
    get mailFromCount() {
      return state.mailFromCount;
    },
    get running() {
      return server !== null;
    },
    waitForMessages(count, timeoutMs = 10_000) {
      if (messages.length >= count) return Promise.resolve(messages.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`Expected ${count} e-mails, received ${messages.length}`));
        }, timeoutMs);
        const check = () => {
          if (messages.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(messages.slice());
        };
        waiters.add(check);
      });
    },
    holdNext() {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedPromise = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { arrived, released };
      return { arrived: arrivedPromise, release };
    },
    async stop() {
      const current = server;
      server = null;
      if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    async start() {
      if (!server) await listen();
    },
  };
}
