import { describe, expect, it } from "vitest";
import { firstErrorPerField, z } from "./zod";

describe("firstErrorPerField", () => {
  const schema = z.object({
    name: z.string().min(1, "Name is required").max(3, "Name is too long"),
    email: z.email("Please enter a valid email"),
    extra: z.string().min(1, "Not a form field"),
  });

  it("keeps the first message of each listed field and nothing else", () => {
    const parsed = schema.safeParse({ name: "", email: "x", extra: "" });
    expect(parsed.success).toBe(false);
    expect(firstErrorPerField(parsed.error!, ["name", "email"] as const)).toEqual({
      name: "Name is required",
      email: "Please enter a valid email",
    });
  });

  it("with no issue on a field, has no key for it", () => {
    const parsed = schema.safeParse({ name: "ok", email: "x", extra: "y" });
    expect(Object.keys(firstErrorPerField(parsed.error!, ["name", "email"] as const))).toEqual(["email"]);
  });
});
