/**
 * At most a few argon2id verifications at once (19 MiB each), so a flood queues rather than piles up; device-
 * cookie browsers have `reservedSlots` of their own. The queue and the wait are both short.
 */
export type VerificationGate = {
  /** A slot, or null when the queue is full or the wait ran out. Call the release function when done. */
  acquire(options?: { reserved?: boolean }): Promise<(() => void) | null>;
  readonly active: number;
  readonly waiting: number;
};

export type VerificationGateOptions = {
  slots: number;
  reservedSlots: number;
  queueLength: number;
  maxWaitMs: number;
};

/** Two verifications at a time, one more for device-cookie browsers. */
const VERIFICATION_GATE_DEFAULTS: VerificationGateOptions = {
  slots: 2,
  reservedSlots: 1,
  queueLength: 8,
  maxWaitMs: 3_000,
};

type Waiter = { reserved: boolean; grant: (release: () => void) => void; timer: ReturnType<typeof setTimeout> };

export function createVerificationGate(
  options: VerificationGateOptions = VERIFICATION_GATE_DEFAULTS,
): VerificationGate {
  let shared = 0;
  let reserved = 0;
  // Device-cookie waiters go ahead of the others.
  const queue: Waiter[] = [];

  const release = (kind: "shared" | "reserved") => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (kind === "shared") shared -= 1;
      else reserved -= 1;
      grantNext();
    };
  };

  // A free slot of a kind this caller may use, taken; or null.
  const take = (mayUseReserved: boolean): (() => void) | null => {
    if (mayUseReserved && reserved < options.reservedSlots) {
      reserved += 1;
      return release("reserved");
    }
    if (shared < options.slots) {
      shared += 1;
      return release("shared");
    }
    return null;
  };

  const grantNext = () => {
    for (let i = 0; i < queue.length; i++) {
      const waiter = queue[i]!;
      const slot = take(waiter.reserved);
      if (!slot) continue;
      queue.splice(i, 1);
      clearTimeout(waiter.timer);
      waiter.grant(slot);
      return;
    }
  };

  return {
    get active() {
      return shared + reserved;
    },
    get waiting() {
      return queue.length;
    },
    acquire({ reserved: mayUseReserved = false } = {}) {
      const slot = take(mayUseReserved);
      if (slot) return Promise.resolve(slot);
      if (queue.length >= options.queueLength) return Promise.resolve(null);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          reserved: mayUseReserved,
          grant: resolve,
          timer: setTimeout(() => {
            queue.splice(queue.indexOf(waiter), 1);
            resolve(null);
          }, options.maxWaitMs),
        };
        waiter.timer.unref?.();
        if (mayUseReserved) {
          const firstOrdinary = queue.findIndex((w) => !w.reserved);
          queue.splice(firstOrdinary === -1 ? queue.length : firstOrdinary, 0, waiter);
        } else {
          queue.push(waiter);
        }
      });
    },
  };
}
