/** Words the owner reads, shared by the admin and the e-mails, so each fact is said one way. */

/** The heading of everything technical: settings, a server's answers, networks. */
export const DETAILS_HEADING = "Details for whoever runs your website";

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** "2.4 MB", "1.2 GB", "less than 0.1 MB" (the spec's upload list keeps its own "2445.0 KB"). */
export function formatFileSize(bytes: number): string {
  if (bytes >= GB) return `${(bytes / GB).toFixed(1)} GB`;
  const megabytes = bytes / MB;
  if (megabytes < 0.05) return "less than 0.1 MB";
  return `${megabytes.toFixed(megabytes < 10 ? 1 : 0)} MB`;
}
