import { describe, expect, it } from "vitest";
import { createPhotoDisk } from "./photo-disk";

describe("the disk for arriving photos", () => {
  it("gives one address half of it (an IPv6 client by its /56), the rest to others, and takes back what is released", () => {
    const disk = createPhotoDisk(100);
    const first = disk.tryReserve("2001:db8:1:100::1", 30);
    expect(first).not.toBeNull();
    // The same /56, another address in it: 30 + 30 is past the half.
    expect(disk.tryReserve("2001:db8:1:1ff::2", 30)).toBeNull();
    expect(disk.tryReserve("2001:db8:1:1ff::2", 20)).not.toBeNull();
    // Another address gets the rest, and no more.
    expect(disk.tryReserve("192.0.2.7", 50)).not.toBeNull();
    expect(disk.tryReserve("192.0.2.8", 1)).toBeNull();
    first!.release();
    first!.release();
    expect(disk.tryReserve("192.0.2.8", 30)).not.toBeNull();
    expect(disk.tryReserve("192.0.2.9", 1)).toBeNull();
  });
});
