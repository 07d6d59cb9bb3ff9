/**
 * Vitest global setup: the back ends for one run. `TEST_BACKEND` chooses
 * what the API tests run on by default (decision 0039):
 *   sqlite-disk (default)  a SQLite file and the local disk, as a default install
 *   postgres-s3            PostgreSQL 15 and an S3 bucket, as a scaled-out install
 * A throwaway PostgreSQL cluster and an S3 server start in both runs: tests of
 * one engine's own behaviour (presigned uploads, advisory locks, NOTIFY
 * across instances) ask for it explicitly, whatever the switch. Each test
 * context makes its own database and bucket (tests/api/helpers.ts).
 */
import type { TestProject } from "vitest/node";
import { migrateToLatest, openPostgresDatabase } from "~/db/database.server";
import { createTestDatabase, startPostgresCluster, startS3Server, sweepStaleBackends } from "./backends";

export const TEST_BACKENDS = ["sqlite-disk", "postgres-s3"] as const;
export type TestBackend = (typeof TEST_BACKENDS)[number];

export type ProvidedBackends = {
  testBackend: TestBackend;
  /** The S3 server behind the verifying front: signatures checked, buckets private. */
  s3Endpoint: string;
  /** s3rver itself, which serves every object to anyone (the privacy notice's test). */
  s3rverEndpoint: string;
  /** The cluster's maintenance database (for CREATE DATABASE). */
  postgresUrl: string;
  /** A database with every migration applied, copied for each test context. */
  postgresTemplate: string;
};

declare module "vitest" {
  export interface ProvidedContext {
    backends: ProvidedBackends;
  }
}

export default async function setup(project: TestProject) {
  const requested = process.env.TEST_BACKEND || "sqlite-disk";
  if (!TEST_BACKENDS.includes(requested as TestBackend)) {
    throw new Error(`TEST_BACKEND must be one of ${TEST_BACKENDS.join(", ")} (got "${requested}")`);
  }
  const testBackend = requested as TestBackend;
  await sweepStaleBackends();

  const s3 = await startS3Server();
  const cluster = await startPostgresCluster().catch(async (error: unknown) => {
    await s3.stop();
    throw error;
  });
  const postgresUrl = cluster.url();
  let postgresTemplate: string;
  try {
    // Migrate once; every test database is a copy of this one.
    const template = await createTestDatabase(postgresUrl);
    const db = openPostgresDatabase(template.url);
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
    postgresTemplate = template.name;
  } catch (error) {
    await s3.stop();
    await cluster.stop();
    throw error;
  }

  project.provide("backends", {
    testBackend,
    s3Endpoint: s3.endpoint,
    s3rverEndpoint: s3.s3rverEndpoint,
    postgresUrl,
    postgresTemplate,
  });
  return async () => {
    await s3.stop();
    await cluster.stop();
  };
}
