import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** The Nu HTML checker (npm vnu-jar), run on Java: the W3C's own validator, offline. */
const VNU_JAR = path.resolve("node_modules/vnu-jar/build/dist/vnu.jar");

type NuMessage = { type: string; subType?: string; url?: string; lastLine?: number; message: string; extract?: string };

/** What the checker says is wrong (errors and warnings) in each named page's HTML: "name:line: message". */
export async function nuCheck(pages: Record<string, string>): Promise<string[]> {
  if (spawnSync("java", ["-version"]).error)
    // Fail loudly: the check is never skipped silently.
    throw new Error(
      "Java is missing for the Nu HTML checker. Install it with:  sudo apt-get install -y default-jre-headless",
    );
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-nu-"));
  try {
    const files = await Promise.all(
      Object.entries(pages).map(async ([name, html]) => {
        const file = path.join(dir, `${name.replace(/[^\w-]+/g, "_") || "_"}.html`);
        await fs.writeFile(file, html);
        return file;
      }),
    );
    const ran = spawnSync("java", ["-jar", VNU_JAR, "--format", "json", ...files], { encoding: "utf8" });
    const { messages } = JSON.parse(ran.stderr) as { messages: NuMessage[] };
    return (
      messages
        .filter((message) => message.type !== "info" || message.subType === "warning")
        // Its CSS checker predates what Tailwind 4 writes (@property, color-mix()): the page's markup is the check.
        .filter((message) => !message.message.startsWith("CSS: "))
        // Element Timing's attribute (a WICG draft the checker does not know) marks the photo the page paints first.
        .filter((message) => !message.message.startsWith("Attribute “elementtiming” not allowed on element “img”"))
        .map((message) => `${path.basename(message.url ?? "")}:${message.lastLine ?? 0}: ${message.message}`)
    );
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
