/**
 * Slots for posts that keep photos on disk at once, per process (the no-JS
 * contact form). A post takes one when its first photo part starts, never
 * for its text alone, and gives it back once its temporary files are gone.
 */

export type PhotoSlot = {
  /** Gives the slot back; a second call does nothing. */
  release(): void;
};

export type PhotoSlots = {
  /** A free slot, or null when all are taken. */
  tryTake(): PhotoSlot | null;
  readonly inUse: number;
};

export function createPhotoSlots(count: number): PhotoSlots {
  let inUse = 0;
  return {
    tryTake() {
      if (inUse >= count) return null;
      inUse += 1;
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          inUse -= 1;
        },
      };
    },
    get inUse() {
      return inUse;
    },
  };
}
