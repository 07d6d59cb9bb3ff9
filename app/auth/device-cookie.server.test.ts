import { describe, expect, it } from "vitest";
import { createDeviceCookies } from "./device-cookie.server";

const cookies = createDeviceCookies(Buffer.alloc(32, 7));

describe("device cookies", () => {
  it("round-trips the username and device id, and keeps a given id", () => {
    const { value, device } = cookies.issue("mark.b@example");
    expect(cookies.read(value)).toEqual(device);
    expect(device.id).toMatch(/^[\w-]{22}$/);
    expect(cookies.issue("mark.b@example", device.id).device.id).toBe(device.id);
  });

  it("refuses a changed username, a changed id, another key's signature and junk", () => {
    const { value } = cookies.issue("owner");
    const [version, , id, signature] = value.split(".");
    expect(cookies.read(`${version}.${Buffer.from("admin").toString("base64url")}.${id}.${signature}`)).toBeNull();
    expect(cookies.read(`${version}.${value.split(".")[1]}.${"A".repeat(22)}.${signature}`)).toBeNull();
    expect(cookies.read(createDeviceCookies(Buffer.alloc(32, 8)).issue("owner").value)).toBeNull();
    for (const junk of [undefined, "", "v1", "v1.a.b.c", `v2${value.slice(2)}`, `${value}x`, "x".repeat(1000)]) {
      expect(cookies.read(junk)).toBeNull();
    }
  });
});
