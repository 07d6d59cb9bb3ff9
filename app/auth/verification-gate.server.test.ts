import { afterEach, describe, expect, it, vi } from "vitest";
import { createVerificationGate } from "./verification-gate.server";

afterEach(() => {
  vi.useRealTimers();
});

const options = { slots: 2, reservedSlots: 1, queueLength: 2, maxWaitMs: 1_000 };

describe("createVerificationGate", () => {
  it("lets at most `slots` ordinary verifications run at once; the next wait, then get the freed slot", async () => {
    const gate = createVerificationGate(options);
    const a = (await gate.acquire())!;
    const b = (await gate.acquire())!;
    expect(gate.active).toBe(2);
    let granted = false;
    const third = gate.acquire().then((release) => {
      granted = true;
      return release;
    });
    await Promise.resolve();
    expect(granted).toBe(false);
    expect(gate.waiting).toBe(1);
    a();
    a(); // releasing twice frees one slot only
    const release = await third;
    expect(release).toBeTypeOf("function");
    expect(gate.active).toBe(2);
    b();
    release!();
    expect(gate.active).toBe(0);
  });

  it("refuses at once when the queue is full", async () => {
    const gate = createVerificationGate(options);
    await gate.acquire();
    await gate.acquire();
    void gate.acquire();
    void gate.acquire();
    expect(gate.waiting).toBe(2);
    expect(await gate.acquire()).toBeNull();
  });

  it("gives up on a waiter after the maximum wait", async () => {
    vi.useFakeTimers();
    const gate = createVerificationGate(options);
    await gate.acquire();
    await gate.acquire();
    const waiting = gate.acquire();
    vi.advanceTimersByTime(999);
    expect(gate.waiting).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await waiting).toBeNull();
    expect(gate.waiting).toBe(0);
  });

  it("keeps a slot for device-cookie browsers that a flood cannot take", async () => {
    const gate = createVerificationGate(options);
    await gate.acquire();
    await gate.acquire();
    void gate.acquire();
    void gate.acquire();
    // Both shared slots busy, the queue full: an ordinary attempt is refused, a known browser goes straight in.
    expect(await gate.acquire()).toBeNull();
    const known = await gate.acquire({ reserved: true });
    expect(known).toBeTypeOf("function");
    expect(gate.active).toBe(3);
  });

  it("puts a waiting device-cookie browser ahead of ordinary waiters", async () => {
    const gate = createVerificationGate({ ...options, reservedSlots: 0, queueLength: 4 });
    const first = (await gate.acquire())!;
    await gate.acquire();
    const order: string[] = [];
    void gate.acquire().then(() => order.push("ordinary"));
    void gate.acquire({ reserved: true }).then(() => order.push("known"));
    first();
    await vi.waitFor(() => expect(order).toEqual(["known"]));
  });
});
