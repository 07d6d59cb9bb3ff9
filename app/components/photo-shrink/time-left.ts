/** Time left from the average rate since the start (steadier than the last step's). Pure: the caller passes time. */
export function createTimeLeftEstimate(startedAtMs: number) {
  return {
    /** Seconds left, or null until a second of sending has given a rate to go by. */
    secondsLeft(loaded: number, total: number, nowMs: number): number | null {
      const elapsed = (nowMs - startedAtMs) / 1000;
      if (elapsed < 1 || loaded <= 0 || total <= 0) return null;
      return Math.max(0, (total - loaded) / (loaded / elapsed));
    },
  };
}

/** "a few seconds left", "about 10 seconds left", "about a minute left", "about 3 minutes left". */
export function timeLeftInWords(seconds: number): string {
  if (seconds < 7.5) return "a few seconds left";
  if (seconds < 55) return `about ${Math.round(seconds / 5) * 5} seconds left`;
  if (seconds < 90) return "about a minute left";
  return `about ${Math.round(seconds / 60)} minutes left`;
}
