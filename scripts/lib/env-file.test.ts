import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyEnvFileArgument, EnvFileError, parseEnvFile, takeEnvFileArgument } from "./env-file";

// Each expectation is what systemd gives a service for the same EnvironmentFile= (systemd.exec(5)).
describe("parseEnvFile, as systemd reads an EnvironmentFile", () => {
  it("reads plain assignments and skips comments, blank lines and lines without =", () => {
    const text = "# a comment\n; another\n\n   # indented comment\nPORT=3000\nnot an assignment\nHOST=127.0.0.1\n";
    expect(parseEnvFile(text)).toEqual({ values: { PORT: "3000", HOST: "127.0.0.1" }, ignored: [] });
  });

  it("keeps a # after the value's start as part of the value", () => {
    expect(parseEnvFile("MAIL_FROM=Website <web@example.co.nz> # not a comment\n").values).toEqual({
      MAIL_FROM: "Website <web@example.co.nz> # not a comment",
    });
  });

  it("drops blanks around the key and an unquoted value, keeping the ones inside", () => {
    expect(parseEnvFile("  SITE_URL  =   https://example.co.nz  \t\nNAME= two  words \n").values).toEqual({
      SITE_URL: "https://example.co.nz",
      NAME: "two  words",
    });
  });

  it("keeps quotes that are not at the start of an unquoted value", () => {
    expect(parseEnvFile(`A=it's "fine"\n`).values).toEqual({ A: `it's "fine"` });
  });

  it("takes single quotes verbatim, across lines, with no escapes", () => {
    expect(parseEnvFile(`A='p@ss #1 \\n $HOME'\nB='two\nlines'\n`).values).toEqual({
      A: "p@ss #1 \\n $HOME",
      B: "two\nlines",
    });
  });

  it("knows the shell's escapes inside double quotes and keeps any other backslash", () => {
    expect(parseEnvFile(`A="say \\"hi\\" \\\\ \\$HOME \\n"\nB="x\\\ny"\n`).values).toEqual({
      A: `say "hi" \\ $HOME \\n`,
      B: "xy",
    });
  });

  it("joins a line ending in a backslash with the next, and keeps an escaped character", () => {
    expect(parseEnvFile("A=one\\\ntwo\nB=a\\ b\\\\c\n").values).toEqual({ A: "onetwo", B: "a b\\c" });
  });

  it("joins quoted parts that follow each other and keeps what follows a closing quote", () => {
    expect(parseEnvFile(`A='one'"two"three\n`).values).toEqual({ A: "onetwothree" });
  });

  it("gives an empty value for KEY= and lets a later line win", () => {
    expect(parseEnvFile("A=\nB=1\nB=2").values).toEqual({ A: "", B: "2" });
  });

  it("expands nothing", () => {
    expect(parseEnvFile("A=$HOME/${USER}\n").values).toEqual({ A: "$HOME/${USER}" });
  });

  it("reads Windows line endings", () => {
    expect(parseEnvFile("A=1\r\nB=2\r\n").values).toEqual({ A: "1", B: "2" });
  });

  it("drops names that are not variable names, and says which", () => {
    expect(parseEnvFile("export A=1\n1B=2\nC-D=3\nE=4\n")).toEqual({
      values: { E: "4" },
      ignored: ["export A", "1B", "C-D"],
    });
  });

  it("reads the file the guide installs", () => {
    const example = fs.readFileSync(new URL("../../deploy/cornerstone.env.example", import.meta.url), "utf8");
    const { values, ignored } = parseEnvFile(example);
    expect(ignored).toEqual([]);
    expect(values).toMatchObject({ HOST: "127.0.0.1", DATA_DIR: "/var/lib/cornerstone", TRUST_PROXY: "loopback" });
  });
});

describe("--env-file", () => {
  it("takes --env-file PATH or --env-file=PATH and leaves the other arguments", () => {
    expect(takeEnvFileArgument(["--out", "x.tar.gz", "--env-file", "/etc/c.env"])).toEqual({
      envFile: "/etc/c.env",
      rest: ["--out", "x.tar.gz"],
    });
    expect(takeEnvFileArgument(["--env-file=/etc/c.env", "file.tar.gz"])).toEqual({
      envFile: "/etc/c.env",
      rest: ["file.tar.gz"],
    });
    expect(takeEnvFileArgument(["file.tar.gz"])).toEqual({ envFile: null, rest: ["file.tar.gz"] });
    expect(() => takeEnvFileArgument(["--env-file"])).toThrow(EnvFileError);
  });

  it("puts the file's values over the shell's and says which file it read", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-env-file-"));
    try {
      const file = path.join(dir, "site.env");
      fs.writeFileSync(file, "DATA_DIR=/srv/from-file\nSITE_URL='https://example.co.nz'\n");
      const target: Record<string, string | undefined> = { DATA_DIR: "/from/shell", PATH: "/usr/bin" };
      const printed: string[] = [];
      const rest = applyEnvFileArgument(["--env-file", file, "backup.tar.gz"], target, (line) => printed.push(line));
      expect(rest).toEqual(["backup.tar.gz"]);
      expect(target).toEqual({ DATA_DIR: "/srv/from-file", SITE_URL: "https://example.co.nz", PATH: "/usr/bin" });
      expect(printed).toEqual([`Settings read from ${file} (2 settings; they win over the shell's).`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a missing file clearly and changes nothing", () => {
    const target: Record<string, string | undefined> = { A: "1" };
    expect(() => applyEnvFileArgument(["--env-file", "/nonexistent/site.env"], target, () => {})).toThrow(
      "Cannot read /nonexistent/site.env: there is no such file.",
    );
    expect(target).toEqual({ A: "1" });
  });
});
