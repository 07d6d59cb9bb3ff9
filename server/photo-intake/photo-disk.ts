import type { IncomingMessage } from "node:http";
import { MAX_ENQUIRY_PHOTO_BYTES } from "~/enquiry-photos/enquiry-photos";
import { normaliseClientAddress } from "~/lib/client-address.server";

/** Disk for arriving photos, reserved before any byte is written (decision 0072); one address gets half. */

/** The most a socket hands over at once: part of it may already be a photo's. */
const CHUNK_BYTES = 64 * 1024;

/** release() gives the disk back; a second call does nothing. */
export type PhotoDiskReservation = { release(): void };

export type PhotoDisk = {
  /** A reservation of `bytes` for a post from `address`, or null when there is no room. */
  tryReserve(address: string, bytes: number): PhotoDiskReservation | null;
};

/** What `photos` photos may write: their limit, or less when the body declares less. */
export function photoBytesOf(req: IncomingMessage, photos: number, received = 0): number {
  const declared = Number(req.headers["content-length"]);
  const most = photos * (MAX_ENQUIRY_PHOTO_BYTES + 1);
  return Number.isSafeInteger(declared) && declared > 0 ? Math.min(declared - received + CHUNK_BYTES, most) : most;
}

export function createPhotoDisk(totalBytes: number): PhotoDisk {
  const byAddress = new Map<string, number>();
  let reserved = 0;
  return {
    tryReserve(address, bytes) {
      const key = normaliseClientAddress(address);
      const mine = byAddress.get(key) ?? 0;
      if (reserved + bytes > totalBytes || mine + bytes > totalBytes / 2) return null;
      reserved += bytes;
      byAddress.set(key, mine + bytes);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          reserved -= bytes;
          const left = (byAddress.get(key) ?? bytes) - bytes;
          if (left > 0) byAddress.set(key, left);
          else byAddress.delete(key);
        },
      };
    },
  };
}
