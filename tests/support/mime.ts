/**
 * Reads the e-mails a test SMTP server receives: headers (unfolded, encoded
 * words decoded), the text and HTML bodies (quoted-printable or base64) and
 * the attached files.
 * Just enough MIME for nodemailer's output; test support, not production code.
 */

export type ParsedMail = {
  /** Header names lower-cased; every occurrence kept in order. */
  headers: [string, string][];
  header(name: string): string | undefined;
  headerCount(name: string): number;
  subject: string;
  text: string;
  html: string;
  /** Every part sent as a file (Content-Disposition: attachment), its bytes decoded. */
  attachments: MailAttachmentPart[];
};

export type MailAttachmentPart = { filename: string | null; contentType: string; content: Buffer };

function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, _charset: string, encoding: string, data: string) => {
      if (encoding.toUpperCase() === "B") return Buffer.from(data, "base64").toString("utf8");
      const bytes = data.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => `%${hex}`);
      try {
        return decodeURIComponent(bytes);
      } catch {
        return bytes;
      }
    });
}

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.indexOf("\r\n\r\n");
  return at === -1 ? { head: raw, body: "" } : { head: raw.slice(0, at), body: raw.slice(at + 4) };
}

function parseHeaders(head: string): [string, string][] {
  const unfolded = head.replace(/\r\n[ \t]+/g, " ");
  return unfolded
    .split("\r\n")
    .filter(Boolean)
    .map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as [string, string];
    });
}

function decodeBody(body: string, transferEncoding: string | undefined): string {
  switch ((transferEncoding ?? "7bit").toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    case "quoted-printable": {
      const soft = body.replace(/=\r\n/g, "");
      const bytes: number[] = [];
      for (let i = 0; i < soft.length; i++) {
        if (soft[i] === "=" && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
          bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
          i += 2;
        } else {
          bytes.push(...Buffer.from(soft[i]!, "utf8"));
        }
      }
      return Buffer.from(bytes).toString("utf8");
    }
    default:
      return body;
  }
}

export function parseMail(raw: string): ParsedMail {
  const { head, body } = splitHead(raw);
  const headers = parseHeaders(head).map(([name, value]) => [name, decodeEncodedWords(value)] as [string, string]);
  const get = (list: [string, string][], name: string) => list.find(([n]) => n === name)?.[1];
  let text = "";
  let html = "";
  const attachments: MailAttachmentPart[] = [];
  const visit = (partHeaders: [string, string][], partBody: string) => {
    const type = get(partHeaders, "content-type") ?? "text/plain";
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (/^multipart\//i.test(type) && boundary) {
      const pieces = partBody.split(`--${boundary}`).slice(1);
      for (const piece of pieces) {
        if (piece.startsWith("--")) break;
        const inner = splitHead(piece.replace(/^\r\n/, ""));
        visit(parseHeaders(inner.head), inner.body.replace(/\r\n$/, ""));
      }
      return;
    }
    const disposition = get(partHeaders, "content-disposition") ?? "";
    if (/^attachment/i.test(disposition)) {
      const encoding = (get(partHeaders, "content-transfer-encoding") ?? "").toLowerCase();
      attachments.push({
        filename: decodeEncodedWords(/filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? "") || null,
        contentType: type.split(";")[0]!.trim().toLowerCase(),
        content:
          encoding === "base64" ? Buffer.from(partBody.replace(/\s+/g, ""), "base64") : Buffer.from(partBody, "utf8"),
      });
      return;
    }
    const decoded = decodeBody(partBody, get(partHeaders, "content-transfer-encoding"));
    if (/^text\/html/i.test(type)) html = decoded;
    else if (/^text\/plain/i.test(type)) text = decoded;
  };
  visit(headers, body);
  return {
    headers,
    header: (name) => get(headers, name.toLowerCase()),
    headerCount: (name) => headers.filter(([n]) => n === name.toLowerCase()).length,
    subject: get(headers, "subject") ?? "",
    text: text.replace(/\r\n/g, "\n"),
    html,
    attachments,
  };
}
