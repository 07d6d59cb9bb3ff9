import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeEach } from "vitest";
import { createLocalStorage } from "~/storage/local-storage.server";
import type { ObjectStorage } from "~/storage/storage.server";

/** The signing secret of the tests' local storage (32 characters, the least it takes). */
export const TEST_SIGNING_SECRET = "s".repeat(32);

/**
 * Local object storage in a fresh temp directory for each test of the file (or describe block)
 * that calls this, handed to `use` before the test and deleted after it.
 */
export function localStorageForEachTest(use: (temp: { rootDir: string; storage: ObjectStorage }) => void): void {
  beforeEach(async () => {
    const rootDir = await mkdtemp(path.join(os.tmpdir(), "cornerstone-storage-"));
    use({ rootDir, storage: createLocalStorage({ rootDir, signingSecret: TEST_SIGNING_SECRET }) });
    return () => rm(rootDir, { recursive: true, force: true });
  });
}
