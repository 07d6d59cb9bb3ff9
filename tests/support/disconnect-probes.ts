import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import path from "node:path";

/**
 * The disconnect fuzzer's hands and eyes: a request sent over a raw socket
 * and broken off after so many bytes, and what the server's process looks
 * like from outside (/proc): its open files, its temporary files.
 */

export type CutStyle = "fin" | "reset";

/**
 * Connects, sends the first `cut` bytes of `request`, then closes: with a FIN
 * (and waits for the server to close its side), or with a reset. A request
 * sent whole is left at once, without waiting for the answer.
 */
export async function sendCut(port: number, request: Buffer, cut: number, style: CutStyle): Promise<void> {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  // Whatever the server answers is read and thrown away.
  socket.resume();
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    await new Promise<void>((resolve) => socket.write(request.subarray(0, cut), () => resolve()));
  } catch {
    socket.destroy();
    return;
  }
  if (cut >= request.length) {
    // The visitor leaves while the server works on the whole request.
    await new Promise((resolve) => setTimeout(resolve, 5));
    socket.destroy();
  } else if (style === "fin") {
    socket.end();
    // The server closes its side once it sees the request will never be complete.
    const waited = setTimeout(() => socket.destroy(), 10_000);
    await closed;
    clearTimeout(waited);
    return;
  } else {
    await new Promise((resolve) => setImmediate(resolve));
    socket.resetAndDestroy();
  }
  await closed;
}

/** Runs `tasks` with at most `parallel` at once. */
export async function inParallel(tasks: (() => Promise<void>)[], parallel: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(parallel, tasks.length) }, worker));
}

/** GET /healthz on a connection of its own, closed after the answer. */
export function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: "127.0.0.1", port, path: "/healthz", agent: false, headers: { Connection: "close" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.setTimeout(10_000, () => req.destroy());
  });
}

const TCP_STATES = [
  "",
  "ESTABLISHED",
  "SYN_SENT",
  "SYN_RECV",
  "FIN_WAIT1",
  "FIN_WAIT2",
  "TIME_WAIT",
  "CLOSE",
  "CLOSE_WAIT",
  "LAST_ACK",
  "LISTEN",
  "CLOSING",
];

type TcpSocket = { localPort: number; remotePort: number; state: string; unreadBytes: number };

/** TCP sockets by inode (from /proc/PID/net/tcp and tcp6): their ports, state and bytes not yet read. */
async function tcpSockets(pid: number): Promise<Map<string, TcpSocket>> {
  const sockets = new Map<string, TcpSocket>();
  for (const table of ["tcp", "tcp6"]) {
    const text = await fs.readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      sockets.set(fields[9]!, {
        localPort: parseInt(fields[1]!.split(":")[1]!, 16),
        remotePort: parseInt(fields[2]!.split(":")[1]!, 16),
        state: TCP_STATES[parseInt(fields[3]!, 16)] ?? fields[3]!,
        unreadBytes: parseInt(fields[4]!.split(":")[1]!, 16),
      });
    }
  }
  return sockets;
}

/** Unix sockets' inodes (from /proc/PID/net/unix): an IPC channel to a child process is one. */
async function unixSockets(pid: number): Promise<Set<string>> {
  const text = await fs.readFile(`/proc/${pid}/net/unix`, "utf8").catch(() => "");
  return new Set(
    text
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/)[6] ?? "")
      .filter(Boolean),
  );
}

/** What a descriptor is, for a failure report: a TCP socket's ports and state, a unix socket, or its target as it is. */
export async function describeDescriptors(pid: number, targets: string[]): Promise<string[]> {
  const sockets = await tcpSockets(pid);
  const unix = await unixSockets(pid);
  return targets.map((target) => {
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1] ?? "";
    const tcp = sockets.get(inode);
    if (tcp) return `${target} tcp :${tcp.localPort} → :${tcp.remotePort} ${tcp.state}`;
    return unix.has(inode) ? `${target} unix` : target;
  });
}

/**
 * The process's open file descriptors (what each points to), leaving out its
 * connections to the back ends (`backendPorts`: PostgreSQL, S3), whose pools
 * open and close connections on their own schedule.
 */
export async function openDescriptors(pid: number, backendPorts: number[]): Promise<string[]> {
  const dir = `/proc/${pid}/fd`;
  const fds = await fs.readdir(dir);
  const sockets = backendPorts.length > 0 ? await tcpSockets(pid) : new Map<string, { remotePort: number }>();
  const targets: string[] = [];
  for (const fd of fds) {
    const target = await fs.readlink(path.join(dir, fd)).catch(() => null);
    if (target === null) continue;
    const socket = /^socket:\[(\d+)\]$/.exec(target);
    if (socket && backendPorts.includes(sockets.get(socket[1]!)?.remotePort ?? -1)) continue;
    targets.push(target);
  }
  return targets.sort();
}

/**
 * The server's own end of the connections from `clientPorts` to `serverPort` that it still holds open
 * (a descriptor of process `pid`): the bytes the kernel holds that it has not read yet, summed, and how
 * many are open.
 */
export async function serverEnds(
  pid: number,
  serverPort: number,
  clientPorts: Set<number>,
): Promise<{ open: number; unreadBytes: number }> {
  const sockets = await tcpSockets(pid);
  const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  let open = 0;
  let unreadBytes = 0;
  for (const fd of fds) {
    const inode = /^socket:\[(\d+)\]$/.exec((await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")) ?? "")?.[1];
    const socket = inode ? sockets.get(inode) : undefined;
    if (!socket || socket.localPort !== serverPort || !clientPorts.has(socket.remotePort)) continue;
    open += 1;
    unreadBytes += socket.unreadBytes;
  }
  return { open, unreadBytes };
}

/** Files the server left that are temporary: anything under DATA_DIR/tmp, and storage's `.…tmp` files. */
export async function temporaryFiles(dataDir: string): Promise<string[]> {
  const entries = await fs.readdir(dataDir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dataDir, path.join(entry.parentPath, entry.name)))
    .filter(
      (file) => file.startsWith(`tmp${path.sep}`) || /(^|\/)\.[^/]*\.tmp$/.test(file) || file.endsWith(".upload"),
    );
}

/** Polls `check` until it holds, for up to `timeoutMs`; whether it did. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A request on a connection of its own, closed after the answer (no pooled socket stays open on the server). */
export function requestOnce(
  port: number,
  method: string,
  target: string,
  body: { bytes: Buffer; contentType: string },
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: target,
        agent: false,
        headers: {
          "Content-Type": body.contentType,
          "Content-Length": String(body.bytes.length),
          Connection: "close",
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Not JSON: kept as text.
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(body.bytes);
  });
}

export function requestJson(
  port: number,
  method: string,
  target: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return requestOnce(
    port,
    method,
    target,
    { bytes: Buffer.from(JSON.stringify(body)), contentType: "application/json" },
    headers,
  );
}

export type PartialPostAnswer = { status: number; headers: Record<string, string>; closedByServer: boolean };

/**
 * Sends `sent` (a request head and the start of its body, the rest never
 * coming), reads the answer's head, then waits up to `closeWithinMs` for the
 * server to close the connection: a refused post whose rest is not read
 * must not hold its connection open for bytes nobody wants.
 */
export async function sendPartOfPost(port: number, sent: Buffer, closeWithinMs = 10_000): Promise<PartialPostAnswer> {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  const ended = new Promise<boolean>((resolve) => {
    socket.once("end", () => resolve(true));
    socket.once("close", () => resolve(true));
  });
  let received = Buffer.alloc(0);
  const head = new Promise<string>((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end >= 0) resolve(received.subarray(0, end).toString("latin1"));
    });
    socket.once("close", () =>
      reject(new Error(`closed without an answer (received: ${JSON.stringify(received.toString("latin1"))})`)),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    socket.write(sent);
    const [statusLine, ...lines] = (await head).split("\r\n");
    const headers = Object.fromEntries(
      lines.map((line) => [
        line.slice(0, line.indexOf(":")).trim().toLowerCase(),
        line.slice(line.indexOf(":") + 1).trim(),
      ]),
    );
    let waited: NodeJS.Timeout | undefined;
    const closedByServer = await Promise.race([
      ended,
      new Promise<boolean>((resolve) => (waited = setTimeout(() => resolve(false), closeWithinMs))),
    ]);
    clearTimeout(waited);
    return { status: Number(statusLine!.split(" ")[1]), headers, closedByServer };
  } finally {
    socket.destroy();
  }
}
