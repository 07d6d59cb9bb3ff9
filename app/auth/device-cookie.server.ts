import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Device cookies (OWASP; docs/decisions/0015): a browser with a valid signed cookie for the username is
 * limited on its own, so an attacker elsewhere cannot lock the owner out. The password is still checked.
 */
export const DEVICE_COOKIE = "cornerstone_device";
export const DEVICE_COOKIE_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000;

const VERSION = "v1";

export type Device = { id: string; username: string };

export type DeviceCookies = {
  /** A new cookie value for this username, keeping the device id when one is given. */
  issue(username: string, deviceId?: string): { value: string; device: Device };
  /** The device a cookie value names, or null when it is missing, malformed or not signed with our key. */
  read(value: string | undefined): Device | null;
};

export function createDeviceCookies(key: Buffer): DeviceCookies {
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");
  return {
    issue(username, deviceId = randomBytes(16).toString("base64url")) {
      const payload = `${VERSION}.${Buffer.from(username).toString("base64url")}.${deviceId}`;
      return { value: `${payload}.${sign(payload)}`, device: { id: deviceId, username } };
    },
    read(value) {
      if (!value || value.length > 400) return null;
      const parts = value.split(".");
      if (parts.length !== 4 || parts[0] !== VERSION) return null;
      const [, encodedName, deviceId, signature] = parts as [string, string, string, string];
      if (!/^[\w-]{16,64}$/.test(deviceId)) return null;
      const expected = Buffer.from(sign(`${VERSION}.${encodedName}.${deviceId}`));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return { id: deviceId, username: Buffer.from(encodedName, "base64url").toString() };
    },
  };
}
