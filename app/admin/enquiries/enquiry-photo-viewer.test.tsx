import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeAll, describe, expect, it } from "vitest";
import { EnquiryPhotos } from "./enquiry-photo-viewer";

/** An enquiry's photos in the inbox, and the full-screen viewer. */

const PHOTOS = [
  { n: 1, width: 1600, height: 1200 },
  { n: 2, width: 1200, height: 1600 },
  { n: 3, width: 1600, height: 900 },
];

beforeAll(() => {
  // jsdom has no PointerEvent: a MouseEvent with a pointer id and isPrimary stands in.
  if (!("PointerEvent" in window)) {
    class PointerEventStandIn extends MouseEvent {
      pointerId: number;
      isPrimary: boolean;
      constructor(type: string, init: PointerEventInit = {}) {
        super(type, init);
        this.pointerId = init.pointerId ?? 1;
        this.isPrimary = init.isPrimary ?? true;
      }
    }
    Object.assign(window, { PointerEvent: PointerEventStandIn });
  }
});

function renderPhotos(photos = PHOTOS) {
  render(<EnquiryPhotos submissionId="sub 1" name="Aroha" photos={photos} />);
}

const shownPhoto = () => within(screen.getByRole("dialog")).getByRole("img");
const swipe = (from: number, to: number, y = 0) => {
  const stage = screen.getByTestId("photo-stage");
  fireEvent.pointerDown(stage, { clientX: from, clientY: 300, pointerId: 1, isPrimary: true });
  fireEvent.pointerUp(stage, { clientX: to, clientY: 300 + y, pointerId: 1, isPrimary: true });
};

describe("EnquiryPhotos", () => {
  it("shows nothing for an enquiry without photos", () => {
    const { container } = render(<EnquiryPhotos submissionId="s" name="Tom" photos={[]} />);
    expect(container).toBeEmptyDOMElement();
  });

  it("shows each thumbnail from the admin route, sized to avoid layout shift, with alt text naming its place and the sender", () => {
    renderPhotos();
    const list = screen.getByRole("list", { name: "Photos from Aroha" });
    const images = within(list).getAllByRole("img");
    expect(images.map((img) => img.getAttribute("alt"))).toEqual([
      "Photo 1 of 3 from Aroha",
      "Photo 2 of 3 from Aroha",
      "Photo 3 of 3 from Aroha",
    ]);
    expect(images[0]).toHaveAttribute("src", "/api/admin/contact-submissions/sub%201/photos/1?size=thumb");
    expect(images[2]).toHaveAttribute("src", "/api/admin/contact-submissions/sub%201/photos/3?size=thumb");
    // The thumbnail's own size: 320 px on the long side.
    expect([images[0]!.getAttribute("width"), images[0]!.getAttribute("height")]).toEqual(["320", "240"]);
    expect([images[1]!.getAttribute("width"), images[1]!.getAttribute("height")]).toEqual(["240", "320"]);
    expect([images[2]!.getAttribute("width"), images[2]!.getAttribute("height")]).toEqual(["320", "180"]);
  });

  it("opens the tapped photo's viewing copy full-screen, with its position, and steps with the buttons, wrapping round", async () => {
    renderPhotos();
    await userEvent.click(screen.getByRole("button", { name: "Photo 2 of 3 from Aroha" }));
    const dialog = screen.getByRole("dialog", { name: "Photos from Aroha" });
    expect(shownPhoto()).toHaveAttribute("src", "/api/admin/contact-submissions/sub%201/photos/2?size=view");
    expect(shownPhoto()).toHaveAttribute("alt", "Photo 2 of 3 from Aroha");
    expect([shownPhoto().getAttribute("width"), shownPhoto().getAttribute("height")]).toEqual(["1200", "1600"]);
    expect(within(dialog).getByRole("status")).toHaveTextContent("Photo 2 of 3");

    await userEvent.click(within(dialog).getByRole("button", { name: "Next photo" }));
    expect(within(dialog).getByRole("status")).toHaveTextContent("Photo 3 of 3");
    expect(shownPhoto()).toHaveAttribute("src", "/api/admin/contact-submissions/sub%201/photos/3?size=view");
    await userEvent.click(within(dialog).getByRole("button", { name: "Next photo" }));
    expect(within(dialog).getByRole("status")).toHaveTextContent("Photo 1 of 3");
    await userEvent.click(within(dialog).getByRole("button", { name: "Previous photo" }));
    expect(within(dialog).getByRole("status")).toHaveTextContent("Photo 3 of 3");
    await userEvent.click(within(dialog).getByRole("button", { name: "Previous photo" }));
    expect(within(dialog).getByRole("status")).toHaveTextContent("Photo 2 of 3");
  });

  it("steps with the arrow keys, and Escape closes it and puts focus back on the thumbnail of the photo last seen", async () => {
    renderPhotos();
    await userEvent.click(screen.getByRole("button", { name: "Photo 1 of 3 from Aroha" }));
    await userEvent.keyboard("{ArrowRight}");
    expect(within(screen.getByRole("dialog")).getByRole("status")).toHaveTextContent("Photo 2 of 3");
    await userEvent.keyboard("{ArrowRight}");
    await userEvent.keyboard("{ArrowLeft}");
    await userEvent.keyboard("{ArrowLeft}");
    await userEvent.keyboard("{ArrowLeft}");
    expect(within(screen.getByRole("dialog")).getByRole("status")).toHaveTextContent("Photo 3 of 3");
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByRole("button", { name: "Photo 3 of 3 from Aroha" })).toHaveFocus();
  });

  it("steps on a sideways swipe of 50 px or more: leftwards to the next, rightwards to the previous; shorter or mostly vertical moves do nothing", async () => {
    renderPhotos();
    await userEvent.click(screen.getByRole("button", { name: "Photo 1 of 3 from Aroha" }));
    const position = () => within(screen.getByRole("dialog")).getByRole("status");
    swipe(300, 251);
    expect(position()).toHaveTextContent("Photo 1 of 3");
    swipe(300, 250);
    expect(position()).toHaveTextContent("Photo 2 of 3");
    swipe(100, 180);
    expect(position()).toHaveTextContent("Photo 1 of 3");
    // A scroll that drifts sideways is not a swipe.
    swipe(300, 240, 120);
    expect(position()).toHaveTextContent("Photo 1 of 3");
  });

  it("shows a spinner until the viewing copy has arrived, and again for the next one", async () => {
    renderPhotos();
    await userEvent.click(screen.getByRole("button", { name: "Photo 1 of 3 from Aroha" }));
    expect(screen.getByTestId("photo-loading")).toBeInTheDocument();
    fireEvent.load(shownPhoto());
    expect(screen.queryByTestId("photo-loading")).toBeNull();
    await userEvent.keyboard("{ArrowRight}");
    expect(screen.getByTestId("photo-loading")).toBeInTheDocument();
    fireEvent.load(shownPhoto());
    expect(screen.queryByTestId("photo-loading")).toBeNull();
  });

  it("has no previous or next for a single photo", async () => {
    renderPhotos([{ n: 1, width: 800, height: 600 }]);
    await userEvent.click(screen.getByRole("button", { name: "Photo 1 of 1 from Aroha" }));
    const dialog = screen.getByRole("dialog");
    expect(within(dialog).queryByRole("button", { name: "Next photo" })).toBeNull();
    expect(within(dialog).getByRole("status")).toHaveTextContent("Photo 1 of 1");
    await userEvent.click(within(dialog).getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByRole("button", { name: "Photo 1 of 1 from Aroha" })).toHaveFocus();
  });
});
