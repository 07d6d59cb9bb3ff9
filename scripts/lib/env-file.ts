import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Reads an environment file the way systemd reads a unit's `EnvironmentFile=`
 * (systemd.exec(5); the state machine of systemd's src/basic/env-file.c), so that
 * `npm run backup -- --env-file /etc/cornerstone/cornerstone.env` sees exactly the
 * settings the service sees (decision 0050):
 * - lines starting with `#` or `;` (after blanks) are comments; a `#` later in a line is part of the value;
 * - lines without `=` are ignored; blanks around the key and around an unquoted value are dropped;
 * - an unquoted value keeps inner blanks and quotes; `\x` keeps `x`; a `\` at the end of a line joins the next;
 * - '…' is taken verbatim (it may span lines); "…" knows the escapes \" \\ \` \$ and a `\` before a
 *   line break, and keeps any other `\x` as written;
 * - names that are not valid variable names are dropped, as systemd does (with a warning here);
 * - a later line wins over an earlier one. Nothing is expanded: `$HOME` stays `$HOME`.
 */
export type EnvFile = { values: Record<string, string>; ignored: string[] };

const NEWLINE = "\n\r";
const BLANK = " \t\n\r";
// Escapable inside double quotes, as in a POSIX shell.
const DOUBLE_QUOTE_ESCAPES = '"\\`$';
const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseEnvFile(text: string): EnvFile {
  const values: Record<string, string> = {};
  const ignored: string[] = [];
  type State =
    | "preKey"
    | "key"
    | "preValue"
    | "value"
    | "valueEscape"
    | "single"
    | "double"
    | "doubleEscape"
    | "comment"
    | "commentEscape";
  let state: State = "preKey";
  let key = "";
  let value = "";
  // Where trailing blanks of an unquoted value (or of the key) start, to cut them off at the end.
  let valueBlankFrom = -1;

  const push = () => {
    const name = key.trimEnd();
    const finished = valueBlankFrom >= 0 && state === "value" ? value.slice(0, valueBlankFrom) : value;
    if (VALID_NAME.test(name)) values[name] = finished;
    else ignored.push(name);
    key = "";
    value = "";
    valueBlankFrom = -1;
  };

  for (const c of text.replace(/^\uFEFF/, "")) {
    switch (state) {
      case "preKey":
        if (c === "#" || c === ";") state = "comment";
        else if (!BLANK.includes(c)) {
          state = "key";
          key = c;
        }
        break;
      case "key":
        if (NEWLINE.includes(c)) {
          // A line without "=": ignored.
          state = "preKey";
          key = "";
        } else if (c === "=") {
          state = "preValue";
          valueBlankFrom = -1;
        } else key += c;
        break;
      case "preValue":
        if (NEWLINE.includes(c)) {
          push();
          state = "preKey";
        } else if (c === "'") state = "single";
        else if (c === '"') state = "double";
        else if (c === "\\") state = "valueEscape";
        else if (!BLANK.includes(c)) {
          state = "value";
          value += c;
        }
        break;
      case "value":
        if (NEWLINE.includes(c)) {
          push();
          state = "preKey";
        } else if (c === "\\") {
          state = "valueEscape";
          valueBlankFrom = -1;
        } else {
          if (!BLANK.includes(c)) valueBlankFrom = -1;
          else if (valueBlankFrom < 0) valueBlankFrom = value.length;
          value += c;
        }
        break;
      case "valueEscape":
        state = "value";
        // An escaped line break joins the lines; any other escaped character is kept as itself.
        if (!NEWLINE.includes(c)) value += c;
        break;
      case "single":
        if (c === "'") state = "preValue";
        else value += c;
        break;
      case "double":
        if (c === '"') state = "preValue";
        else if (c === "\\") state = "doubleEscape";
        else value += c;
        break;
      case "doubleEscape":
        state = "double";
        if (DOUBLE_QUOTE_ESCAPES.includes(c)) value += c;
        else if (c !== "\n") value += `\\${c}`;
        break;
      case "comment":
        if (c === "\\") state = "commentEscape";
        else if (NEWLINE.includes(c)) state = "preKey";
        break;
      case "commentEscape":
        state = NEWLINE.includes(c) ? "preKey" : "comment";
        break;
    }
  }
  if (["preValue", "value", "valueEscape", "single", "double", "doubleEscape"].includes(state)) push();
  return { values, ignored };
}

export class EnvFileError extends Error {}

/** `--env-file PATH` or `--env-file=PATH` from a script's arguments; the rest of the arguments unchanged. */
export function takeEnvFileArgument(args: readonly string[]): { envFile: string | null; rest: string[] } {
  const rest: string[] = [];
  let envFile: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--env-file") {
      const next = args[i + 1];
      if (!next || next.startsWith("--"))
        throw new EnvFileError("--env-file needs a file: --env-file /etc/cornerstone/cornerstone.env");
      envFile = next;
      i++;
    } else if (arg.startsWith("--env-file=")) envFile = arg.slice("--env-file=".length);
    else rest.push(arg);
  }
  return { envFile, rest };
}

/**
 * Applies `--env-file PATH` from a script's arguments: the file's settings go into `target`
 * (the process's environment) over the shell's, as the service's environment is the file's.
 * Prints which file was read (and any line systemd would ignore), and returns the other arguments.
 */
export function applyEnvFileArgument(
  args: readonly string[],
  target: Record<string, string | undefined> = process.env,
  print: (line: string) => void = (line) => console.error(line),
): string[] {
  const { envFile, rest } = takeEnvFileArgument(args);
  if (!envFile) return rest;
  const file = path.resolve(envFile);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EnvFileError(
      code === "EACCES"
        ? `Cannot read ${file}: permission denied. Run the script as the service's user (runuser -u cornerstone -- …): the file's group may read it.`
        : `Cannot read ${file}: ${code === "ENOENT" ? "there is no such file" : (error as Error).message}.`,
    );
  }
  const { values, ignored } = parseEnvFile(text);
  for (const name of ignored)
    print(`${file}: "${name}" is not a variable name, so that line is ignored (as systemd ignores it).`);
  Object.assign(target, values);
  const count = Object.keys(values).length;
  print(`Settings read from ${file} (${count} ${count === 1 ? "setting" : "settings"}; they win over the shell's).`);
  return rest;
}
