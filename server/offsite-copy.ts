// The off-site copy process's entry (decision 0070): Vite builds it into build/server/offsite-copy.js
// beside the server bundle; development and tests run this file with tsx. The server forks it for
// each copy; it takes the copy, reports, and exits (app/backups/offsite-copy-process.server.ts).
import { copyProcessMain } from "~/backups/offsite-copy-process.server";

await copyProcessMain();
