// The off-site copy process (decision 0070), built into build/server/offsite-copy.js and run from source with tsx:
// the server forks it for each copy; it takes the copy, reports, and exits.
import { copyProcessMain } from "~/backups/offsite-copy-process.server";

await copyProcessMain();
