/**
 * Vitest global setup: the back ends for one run. `TEST_BACKEND` chooses
 * what the API tests run on (decision 0039):
 *   sqlite-disk (default)  a SQLite file and the local disk, as a default install
 *   postgres-s3            PostgreSQL 15 and an S3 bucket, as a scaled-out install
 * The S3 server starts in both (tests of the presigned-upload protocol use it
 * whatever the switch), PostgreSQL only for postgres-s3. Each test context
 * then makes its own database and bucket (tests/api/helpers.ts).
 */
import type { TestProject } from "vitest/node";
import { migrateToLatest, openPostgresDatabase } from "~/db/database.server";
import { createTestDatabase, startPostgresCluster, startS3Server, sweepStaleBackends } from "./backends";

export const TEST_BACKENDS = ["sqlite-disk", "postgres-s3"] as const;
export type TestBackend = (typeof TEST_BACKENDS)[number];

export type ProvidedBackends = {
  testBackend: TestBackend;
  s3Endpoint: string;
  /** The cluster's maintenance database (for CREATE DATABASE); null without PostgreSQL. */
  postgresUrl: string | null;
  /** A database with every migration applied, copied for each test context. */
  postgresTemplate: string | null;
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
  let stopPostgres = async () => {};
  let postgresUrl: string | null = null;
  let postgresTemplate: string | null = null;
  try {
    if (testBackend === "postgres-s3") {
      const cluster = await startPostgresCluster();
      stopPostgres = cluster.stop;
      postgresUrl = cluster.url();
      // Migrate once; every test database is a copy of this one.
      const template = await createTestDatabase(postgresUrl);
      const db = openPostgresDatabase(template.url);
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
      postgresTemplate = template.name;
    }
  } catch (error) {
    await s3.stop();
    await stopPostgres();
    throw error;
  }

  project.provide("backends", { testBackend, s3Endpoint: s3.endpoint, postgresUrl, postgresTemplate });
  return async () => {
    await s3.stop();
    await stopPostgres();
  };
}
