/** A wake-up call between modules: "something changed, look again". Listeners run synchronously. */
export type Signal = {
  notify(): void;
  subscribe(listener: () => void): () => void;
};

export function createSignal(): Signal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
