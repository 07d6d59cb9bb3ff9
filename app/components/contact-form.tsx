import { Send } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { CONTACT_FIELDS, HONEYPOT_FIELD, type ContactField, type ContactFieldErrors } from "~/contact/contact-fields";
import { PHOTO_TOKENS_FIELD, photosNotTakenMessage, type ContactAccepted } from "~/enquiry-photos/enquiry-photos";
import { apiRequest } from "~/lib/api-client";
import { CHOOSE_PHOTOS_AGAIN_MESSAGE, PhotoPicker, usePhotoUploads } from "./photo-picker";
import { Button } from "./ui/button";
import { FieldError, TextField, fieldClasses, focusFirstInvalid } from "./ui/form-field";
import { Spinner } from "./ui/spinner";
import { toast } from "./ui/use-toast";

/** What the no-JavaScript form post answers (see routes/contact.tsx). */
export type ContactActionResult =
  /** `photosNotTaken`: stored, but a cap kept its photos out (issue 21 §6). */
  | { status: "sent"; photosNotTaken?: boolean }
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
export const CONTACT_REFUSED = {
  title: "Message not sent",
  description: "The form was sent from another website, so nothing was sent. Please fill in the form on this page, or call directly.",
} as const;

const FIELDS: { name: ContactField; label: string; type: string; autoComplete: string; required: boolean }[] = [
  { name: "name", label: "Name", type: "text", autoComplete: "name", required: true },
  { name: "email", label: "Email", type: "email", autoComplete: "email", required: true },
  { name: "phone", label: "Phone (optional)", type: "tel", autoComplete: "tel", required: false },
];

// The shared schema (and zod with it) loads when the visitor starts on the form, not with the page.
const loadSchema = () => import("~/contact/contact-schema");

/**
 * The enquiry form. With JavaScript it validates in place and posts JSON to
 * /api/contact; without, it posts to the /contact route, which answers with
 * the same messages.
 */
export function ContactForm({ serverResult, contactEmail }: { serverResult?: ContactActionResult; contactEmail: string }) {
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<ContactFieldErrors>(
    serverResult && "errors" in serverResult ? serverResult.errors : {},
  );
  const [submitting, setSubmitting] = useState(false);
  const [photosNotTaken, setPhotosNotTaken] = useState(serverResult?.status === "sent" && serverResult.photosNotTaken === true);
  const photoUploads = usePhotoUploads(
    serverResult?.status === "photos-refused" ? [...serverResult.messages, CHOOSE_PHOTOS_AGAIN_MESSAGE] : [],
  );
  const defaults = serverResult && "values" in serverResult ? serverResult.values : {};

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const values = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const { contactMessageSchema, contactFieldErrors } = await loadSchema();
    const parsed = contactMessageSchema.safeParse(values);
    if (!parsed.success) {
      const fieldErrors = contactFieldErrors(parsed.error);
      setErrors(fieldErrors);
      focusFirstInvalid(form, CONTACT_FIELDS, fieldErrors);
      return;
    }
    setErrors({});
    setSubmitting(true);
    setPhotosNotTaken(false);
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
      setPhotosNotTaken(photos.some((photo) => photo.state === "capped") || accepted.photos?.notTaken === true);
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
      action="/contact"
      encType="multipart/form-data"
      noValidate
      onSubmit={handleSubmit}
      onFocus={() => void loadSchema()}
      aria-labelledby="contact-form-title"
      className="space-y-5"
    >
      {serverResult?.status === "sent" ? (
        <div role="status" className="rounded-md border border-green-700 bg-green-50 p-4 text-green-900">
          <p className="font-semibold">{CONTACT_SENT.title}</p>
          <p>{CONTACT_SENT.description}</p>
        </div>
      ) : null}
      {serverResult?.status === "failed" || serverResult?.status === "refused" ? (
        <div role="alert" className="rounded-md border border-red-700 bg-red-50 p-4 text-red-900">
          <p className="font-semibold">{(serverResult.status === "failed" ? CONTACT_FAILED : CONTACT_REFUSED).title}</p>
          <p>{(serverResult.status === "failed" ? CONTACT_FAILED : CONTACT_REFUSED).description}</p>
        </div>
      ) : null}

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

      <PhotoPicker uploads={photoUploads} disabled={submitting} />

      {/* Honeypot: people never see it; bots that fill it in are quietly ignored. */}
      <div className="hidden">
        <label htmlFor="contact-website">Leave this field empty</label>
        <input id="contact-website" name={HONEYPOT_FIELD} type="text" tabIndex={-1} autoComplete="off" />
      </div>

      <Button type="submit" size="lg" disabled={submitting} className="w-full sm:w-auto">
        {submitting ? <Spinner className="h-5 w-5" /> : <Send aria-hidden="true" className="h-5 w-5" />}
        {submitting ? "Sending..." : "Send Message"}
      </Button>
    </form>
    {photosNotTaken ? (
      <p role="status" className="mt-4 rounded-md border border-amber-700 bg-amber-50 p-4 text-amber-950">
        {photosNotTakenMessage(contactEmail)}
      </p>
    ) : null}
    </>
  );
}
