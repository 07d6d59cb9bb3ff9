import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver } from "kysely";

/**
 * SQLite whose transactions begin IMMEDIATE: each takes the write lock at its start, waiting up to
 * busy_timeout for it. A DEFERRED transaction that reads and then writes (the duplicate check before
 * an enquiry is stored) fails at once with SQLITE_BUSY when another process (`npm run backup` taking
 * its lease) wrote in between: busy_timeout cannot help a read snapshot that is out of date. The
 * server is SQLite's one writer anyway, so starting as a writer costs nothing.
 */
export class WriterFirstSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    // An own property: the driver's methods keep their class's private state.
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    return driver;
  }
}
