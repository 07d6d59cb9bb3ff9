import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { readCookie } from "./session";

const NAME = "__Host-cornerstone_session";
const read = (cookie: string | undefined, name = NAME) => readCookie({ headers: { cookie } } as Request, name);

describe("readCookie", () => {
  it("reads one cookie among others, percent-decoded", () => {
    expect(read(`theme=dark; ${NAME}=abc%2Ddef; other=1`)).toBe("abc-def");
    expect(read("theme=dark")).toBeUndefined();
    expect(read(undefined)).toBeUndefined();
    // Another name that merely ends the same way is not it.
    expect(read(`x${NAME}=nope`)).toBeUndefined();
  });

  it("takes the first of duplicate __Host- names", () => {
    expect(read(`${NAME}=first; ${NAME}=second`)).toBe("first");
  });

  it("skips a malformed or empty value and takes the next copy of the name", () => {
    expect(read(`${NAME}=%E0%A4%A; ${NAME}=good`)).toBe("good");
    expect(read(`${NAME}=; ${NAME}=good`)).toBe("good");
    expect(read(`${NAME}=%zz`)).toBeUndefined();
    expect(read(`${NAME}=`)).toBeUndefined();
  });

  it("ignores pairs without a value separator", () => {
    expect(read(`${NAME}; ${NAME}=good`)).toBe("good");
  });
});
