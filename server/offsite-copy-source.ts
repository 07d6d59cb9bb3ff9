import { entryFromSource } from "./image-worker-source";

/** The off-site copy process (server/offsite-copy.ts) from its source, as the image worker is. */
export const offsiteCopyFromSource = () => entryFromSource("./offsite-copy.ts");
