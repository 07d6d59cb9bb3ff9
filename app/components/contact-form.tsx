import { Send } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import {
  CONTACT_FIELDS,
  HONEYPOT_FIELD,
  type ContactField,
  type ContactFieldErrors,
} from "~/notifications/enquiry-fields";
import { CONTACT_FORM_ACTION, CONTACT_RESULT_ID, type SentPhotos } from "~/contact/contact-result";
import { PHOTO_TOKENS_FIELD, photoOutcomeMessages, type ContactAccepted } from "~/enquiry-photos/enquiry-photos";
import { apiRequest } from "~/lib/api-client";
import { plural } from "~/lib/plural";
import { CHOOSE_PHOTOS_AGAIN_MESSAGE, PhotoPicker, isUnderWay, usePhotoUploads } from "./photo-picker";
import { cn } from "~/lib/cn";
import { Button } from "./ui/button";
import { FieldError, TextField, fieldClasses, focusFirstInvalid } from "./ui/form-field";
import { Spinner } from "./ui/spinner";
import { toast } from "./ui/use-toast";

/** What the no-JavaScript form post answers (see routes/contact.tsx), shown in the form's result box. */
export type ContactActionResult =
  /** The page a stored post is redirected to, with what became of its photos. */
  | { status: "sent"; photos?: SentPhotos }
  | { status: "invalid"; errors: ContactFieldErrors; values: Record<string, string> }
  /** A photo of the no-JS post was refused: nothing stored, the text comes back and the visitor picks the photos again. */
  | { status: "photos-refused"; messages: string[]; errors: ContactFieldErrors; values: Record<string, string> }
  | { status: "failed"; values: Record<string, string> }
  /** Posted from another website: nothing was stored (server/middleware/cross-site.ts). */
  | { status: "refused" };

export const CONTACT_SENT = {
  title: "Message Sent",
  description: "Thank you for your message! We will get back to you soon.",
} as const;
export const CONTACT_FAILED = {
  title: "Error",
  description: "Failed to send message. Please try again or call directly.",
} as const;
/** The result box's title over the field errors of a post the server sent back. */
export const CONTACT_NOT_SENT_TITLE = "Message not sent";
export const CONTACT_REFUSED = {
  title: "Message not sent",
  description:
    "The form was sent from another website, so nothing was sent. Please fill in the form on this page, or call directly.",
} as const;

const FIELDS: { name: ContactField; label: string; type: string; autoComplete: string; required: boolean }[] = [
  { name: "name", label: "Name", type: "text", autoComplete: "name", required: true },
  { name: "email", label: "Email", type: "email", autoComplete: "email", required: true },
  { name: "phone", label: "Phone (optional)", type: "tel", autoComplete: "tel", required: false },
];

// The schema (and zod) loads on first use; offline it may not come, and the server checks the same.
const loadSchema = () => import("~/contact/contact-schema").catch(() => null);

/** With JavaScript it validates and posts JSON to /api/contact; without, to /contact, with the same messages. */
export function ContactForm({
  serverResult,
  contactEmail,
}: {
  serverResult?: ContactActionResult;
  contactEmail: string;
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<ContactFieldErrors>(
    serverResult && "errors" in serverResult ? serverResult.errors : {},
  );
  const [submitting, setSubmitting] = useState(false);
  // After a send with JavaScript, the photos that did not go with it (a post without it says so in the result box).
  const [photoNotices, setPhotoNotices] = useState<string[]>([]);
  const photoUploads = usePhotoUploads();
  const defaults = serverResult && "values" in serverResult ? serverResult.values : {};
  const waitingFor = photoUploads.photos.filter(isUnderWay).length;

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const values = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const checks = await loadSchema();
    const parsed = checks?.contactMessageSchema.safeParse(values);
    if (checks && parsed && !parsed.success) {
      const fieldErrors = checks.contactFieldErrors(parsed.error);
      setErrors(fieldErrors);
      focusFirstInvalid(form, CONTACT_FIELDS, fieldErrors);
      return;
    }
    setErrors({});
    setSubmitting(true);
    setPhotoNotices([]);
    try {
      // Photos still being sent are waited for; their tokens go with the enquiry.
      const photos = await photoUploads.settled();
      const photoTokens = photos.flatMap((photo) => (photo.token ? [photo.token] : []));
      const response = await apiRequest("POST", "/api/contact", {
        name: values.name,
        email: values.email,
        phone: values.phone,
        message: values.message,
        [HONEYPOT_FIELD]: values[HONEYPOT_FIELD],
        // Without photos, the spec's JSON exactly.
        ...(photoTokens.length ? { [PHOTO_TOKENS_FIELD]: photoTokens } : {}),
      });
      const accepted = (await response.json().catch(() => ({}))) as Partial<ContactAccepted>;
      toast({ ...CONTACT_SENT });
      form.reset();
      photoUploads.clear();
      setPhotoNotices(photoOutcomeMessages(accepted.photos, contactEmail));
    } catch {
      // The form keeps what was typed, so nothing is lost.
      toast({ ...CONTACT_FAILED, variant: "destructive" });
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <>
      <form
        ref={formRef}
        method="post"
        action={CONTACT_FORM_ACTION}
        encType="multipart/form-data"
        noValidate
        onSubmit={handleSubmit}
        onFocus={() => void loadSchema()}
        aria-labelledby="contact-form-title"
        className="space-y-5"
      >
        {serverResult ? <ResultBox result={serverResult} contactEmail={contactEmail} /> : null}

        <div className="grid gap-5 sm:grid-cols-2">
          {FIELDS.map((field) => (
            <TextField
              key={field.name}
              id={`contact-${field.name}`}
              label={field.label}
              error={errors[field.name]}
              className={field.name === "phone" ? "sm:col-span-2" : undefined}
              name={field.name}
              type={field.type}
              autoComplete={field.autoComplete}
              required={field.required}
              defaultValue={defaults[field.name] ?? ""}
            />
          ))}
        </div>

        <div>
          <label htmlFor="contact-message" className="block text-sm font-semibold text-stone-800">
            Message
          </label>
          <textarea
            id="contact-message"
            name="message"
            rows={4}
            required
            defaultValue={defaults.message ?? ""}
            aria-invalid={errors.message ? true : undefined}
            aria-describedby={errors.message ? "contact-message-error" : undefined}
            className={fieldClasses(Boolean(errors.message))}
          />
          <FieldError id="contact-message-error" message={errors.message} />
        </div>

        {/* Honeypot: people never see it; bots that fill it in are quietly ignored. Before the photos, so a
            bot's photos are never written to disk (server/middleware/contact-multipart.ts). */}
        <div className="hidden">
          <label htmlFor="contact-website">Leave this field empty</label>
          <input id="contact-website" name={HONEYPOT_FIELD} type="text" tabIndex={-1} autoComplete="off" />
        </div>

        <PhotoPicker uploads={photoUploads} disabled={submitting} />

        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <Button type="submit" size="lg" disabled={submitting} className="w-full sm:w-auto">
            {submitting ? <Spinner className="h-5 w-5" /> : <Send aria-hidden="true" className="h-5 w-5" />}
            {submitting ? "Sending..." : "Send Message"}
          </Button>
          {/* While Send waits for photos still on their way, it says so beside the spec's 'Sending...'. */}
          <p role="status" className="text-sm font-medium text-stone-800">
            {submitting && waitingFor > 0 ? `Waiting for ${plural(waitingFor, "photo", "photos")}` : ""}
          </p>
        </div>
      </form>
      {photoNotices.length ? (
        <div role="status" className="mt-4 space-y-2 rounded-md border border-amber-700 bg-amber-50 p-4 text-amber-950">
          {photoNotices.map((notice) => (
            <p key={notice}>{notice}</p>
          ))}
        </div>
      ) : null}
    </>
  );
}

/** The action ends in #contact-result, so the no-JS answer opens here, focused (tabindex=-1). */
function ResultBox({ result, contactEmail }: { result: ContactActionResult; contactEmail: string }) {
  const good = result.status === "sent";
  const fieldErrors =
    "errors" in result
      ? CONTACT_FIELDS.flatMap((field) => (result.errors[field] ? [[field, result.errors[field]] as const] : []))
      : [];
  const photoMessages = result.status === "photos-refused" ? [...result.messages, CHOOSE_PHOTOS_AGAIN_MESSAGE] : [];
  const { title, description } =
    result.status === "sent"
      ? CONTACT_SENT
      : result.status === "failed"
        ? CONTACT_FAILED
        : result.status === "refused"
          ? CONTACT_REFUSED
          : { title: CONTACT_NOT_SENT_TITLE, description: null };
  return (
    <div
      id={CONTACT_RESULT_ID}
      tabIndex={-1}
      role={good ? "status" : "alert"}
      className={cn(
        "scroll-mt-24 rounded-md border p-4 focus:outline-2 focus:outline-offset-2",
        good
          ? "border-green-700 bg-green-50 text-green-900 focus:outline-green-800"
          : "border-red-700 bg-red-50 text-red-900 focus:outline-red-800",
      )}
    >
      <p className="font-semibold">{title}</p>
      {description ? <p>{description}</p> : null}
      {result.status === "sent"
        ? photoOutcomeMessages(result.photos, contactEmail).map((notice) => (
            <p key={notice} className="mt-2">
              {notice}
            </p>
          ))
        : null}
      {photoMessages.length || fieldErrors.length ? (
        <ul className="mt-1 list-disc space-y-1 pl-5">
          {photoMessages.map((message) => (
            <li key={message}>{message}</li>
          ))}
          {fieldErrors.map(([field, message]) => (
            <li key={field}>
              <a href={`#contact-${field}`} className="inline-block py-0.5 underline underline-offset-2">
                {message}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
