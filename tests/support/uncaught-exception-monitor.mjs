// Preloaded (node --import) into a server under test: reports every uncaught exception on stderr,
// even one a process-wide 'uncaughtException' handler would swallow. It changes nothing:
// 'uncaughtExceptionMonitor' only observes.
import process from "node:process";

process.on("uncaughtExceptionMonitor", (error, origin) => {
  process.stderr.write(
    `UNCAUGHT EXCEPTION (monitor): ${origin}: ${error && error.stack ? error.stack : String(error)}\n`,
  );
});
