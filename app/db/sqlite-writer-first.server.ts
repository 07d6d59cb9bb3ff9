import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver } from "kysely";

/**
 * Transactions begin IMMEDIATE: a DEFERRED one that reads then writes fails at once with SQLITE_BUSY when another
 * process wrote in between (busy_timeout cannot help a stale snapshot). The server is the one writer anyway.
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
