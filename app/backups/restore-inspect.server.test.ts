import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readTableLines } from "./restore-inspect.server";

const lines = async (chunks: (string | Buffer)[]) => {
  const rows = [];
  for await (const line of readTableLines(Readable.from(chunks.map((c) => Buffer.from(c))), "users")) rows.push(line);
  return rows;
};

describe("a table's JSON lines, read one at a time", () => {
  it("joins a line split across chunks, skips blank lines and counts every line", async () => {
    expect(await lines(['{"a":1}\n\n{"b":', '"two"}\n{"c":null}'])).toEqual([
      { row: { a: 1 }, line: 1 },
      { row: { b: "two" }, line: 3 },
      { row: { c: null }, line: 4 },
    ]);
  });

  it("accepts a line of exactly 1 MB and refuses one byte more, naming the table and the line", async () => {
    const row = (bytes: number) => `{"v":"${"x".repeat(bytes - 8)}"}`;
    expect(Buffer.byteLength(row(1_048_576))).toBe(1_048_576);
    expect(await lines([`${row(10)}\n`, row(1_048_576)])).toHaveLength(2);
    await expect(lines([`${row(10)}\n`, row(1_048_577)])).rejects.toThrow(
      "In table users (tables/users.jsonl), line 2: the line is longer than 1.0 MB, which no row of this site is",
    );
  });

  it("refuses a line that is not one JSON object of text, numbers and nulls", async () => {
    await expect(lines(['{"a":1}\n[1,2]\n'])).rejects.toThrow(
      "In table users (tables/users.jsonl), line 2: the line is not a row",
    );
    await expect(lines(['{"a":{"nested":1}}\n'])).rejects.toThrow("line 1: the line is not a row");
    await expect(lines(["{oops\n"])).rejects.toThrow("line 1: the line is not valid JSON");
  });
});
