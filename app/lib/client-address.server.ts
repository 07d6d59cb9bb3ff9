import { createHmac } from "node:crypto";
import { isIP } from "node:net";

/** The per-address limits' key: plain IPv4, or an IPv6 /56 (one home connection often gets a whole /56). */
export function normaliseClientAddress(address: string | undefined): string {
  const raw = (address ?? "").trim().toLowerCase();
  const version = isIP(raw.split("%")[0] ?? "");
  if (version === 4) return raw;
  if (version !== 6) return raw.slice(0, 64) || "unknown";
  const groups = expandIpv6(raw.split("%")[0]!);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  const prefix = [...groups.slice(0, 3), groups[3]! & 0xff00];
  return `${prefix.map((g) => g.toString(16)).join(":")}::/56`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad converted). */
function expandIpv6(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const start = parse(head);
  const end = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? [] : new Array<number>(8 - start.length - end.length).fill(0);
  return [...start, ...zeros, ...end];
}

/** What the database keeps for a client: a keyed hash of its normalised address, never the address. */
export type AddressKeyer = (address: string | undefined) => string;

export function createAddressKeyer(key: Buffer): AddressKeyer {
  return (address) => createHmac("sha256", key).update(normaliseClientAddress(address)).digest("hex").slice(0, 32);
}
