import type { Request } from "express";
import { readContent } from "~/content/content.server";
import type { SectionKey } from "~/content/sections";
import { z } from "~/lib/zod";
import { queueSecurityNotice } from "~/notifications/security-notices.server";
import type { AppServices } from "~/services.server";

/** The text that holds the site's contact e-mail address: where the owner's e-mails go unless NOTIFY_EMAIL is set. */
const CONTACT_EMAIL: SectionKey = "contact.email";

async function contactEmail(services: AppServices): Promise<string> {
  return (await readContent(services, [CONTACT_EMAIL]))[CONTACT_EMAIL].trim();
}

/**
 * Runs a text change; when it moves the contact address the owner is told at both addresses, so a stolen
 * session cannot first move the owner's e-mails, then change the sign-in unseen.
 */
export async function watchContactEmail<T>(
  services: AppServices,
  req: Request,
  key: SectionKey,
  change: () => Promise<T>,
): Promise<T> {
  if (key !== CONTACT_EMAIL) return change();
  const before = await contactEmail(services);
  const result = await change();
  const after = await contactEmail(services);
  if (before.toLowerCase() === after.toLowerCase()) return result;
  const notice = {
    kind: "contact-email-changed",
    previousAddress: before,
    newAddress: after,
    userAgent: req.get("user-agent") ?? "",
  } as const;
  await queueSecurityNotice(services, notice);
  if (z.email().safeParse(before).success) await queueSecurityNotice(services, { ...notice, to: before });
  return result;
}
