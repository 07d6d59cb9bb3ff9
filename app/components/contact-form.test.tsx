import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, mockFetch } from "~/admin/test-helpers";
import { ContactForm } from "./contact-form";
// Loaded here, so the form's own import of it on Send resolves at once.
import "~/contact/contact-schema";

/** What the contact form says after a send about photos that did not go with the message. */

const EMAIL = "mark@example.nz";

afterEach(() => vi.unstubAllGlobals());

async function sendAnswered(photos: { attached: number; notAttached: number; notTaken: boolean }) {
  mockFetch([
    { method: "POST", path: "/api/contact", respond: () => json(201, { message: "Message received", photos }) },
  ]);
  render(<ContactForm contactEmail={EMAIL} />);
  fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Aroha" } });
  fireEvent.change(screen.getByLabelText("Email"), { target: { value: "aroha@example.nz" } });
  fireEvent.change(screen.getByLabelText("Message"), { target: { value: "A quote for a stone wall, please." } });
  fireEvent.click(screen.getByRole("button", { name: "Send Message" }));
}

describe("the contact form's result, with JavaScript", () => {
  it("reads the server's answer: one photo that could not be sent", async () => {
    await sendAnswered({ attached: 1, notAttached: 1, notTaken: false });
    expect(
      await screen.findByText(
        `1 photo could not be sent with your message. Please send it again, or e-mail it to ${EMAIL}.`,
      ),
    ).toBeVisible();
  });

  it("two, with a cap that kept others out: both said", async () => {
    await sendAnswered({ attached: 0, notAttached: 2, notTaken: true });
    expect(
      await screen.findByText(
        `2 photos could not be sent with your message. Please send them again, or e-mail them to ${EMAIL}.`,
      ),
    ).toBeVisible();
    expect(
      screen.getByText(`Your message was sent, but we could not take photos today. Please e-mail them to ${EMAIL}.`),
    ).toBeVisible();
  });

  it("says nothing of photos when every one went", async () => {
    await sendAnswered({ attached: 2, notAttached: 0, notTaken: false });
    await vi.waitFor(() => expect(screen.getByRole("button", { name: "Send Message" })).toBeEnabled());
    expect(screen.queryByText(/could not be sent/)).toBeNull();
  });
});

describe("the contact form's result, without JavaScript (the page after the 303)", () => {
  it("says how many photos could not be sent", () => {
    render(
      <ContactForm
        contactEmail={EMAIL}
        serverResult={{ status: "sent", photos: { notTaken: false, notAttached: 2 } }}
      />,
    );
    const box = document.getElementById("contact-result")!;
    expect(box).toHaveTextContent("Message Sent");
    expect(box).toHaveTextContent(
      `2 photos could not be sent with your message. Please send them again, or e-mail them to ${EMAIL}.`,
    );
  });
});
