import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Tooltip, TooltipProvider } from "./tooltip";

function hover(element: Element) {
  fireEvent.pointerMove(element, { pointerType: "mouse" });
}
/** Pressing a trigger closes its tooltip, as clicking does in a browser. */
function press(element: Element) {
  fireEvent.pointerDown(element, { pointerType: "mouse" });
}

describe("Tooltip (spec §9: open delay 700 ms, skip delay 300 ms)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // jsdom has no ResizeObserver; Radix only uses it to size the arrow.
    vi.stubGlobal(
      "ResizeObserver",
      class {
        observe() {}
        unobserve() {}
        disconnect() {}
      },
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  function renderTwo() {
    render(
      <TooltipProvider>
        <Tooltip label="Drag to reorder">
          <button type="button">a</button>
        </Tooltip>
        <Tooltip label="Delete image">
          <button type="button">b</button>
        </Tooltip>
      </TooltipProvider>,
    );
    return { first: screen.getByRole("button", { name: "a" }), second: screen.getByRole("button", { name: "b" }) };
  }

  it("opens only after 700 ms of hovering", () => {
    const { first } = renderTwo();
    hover(first);
    act(() => void vi.advanceTimersByTime(690));
    expect(screen.queryByRole("tooltip")).toBeNull();
    act(() => void vi.advanceTimersByTime(20));
    expect(screen.getByRole("tooltip")).toHaveTextContent("Drag to reorder");
  });

  it("opens the next one at once when moved to within 300 ms, but not after", () => {
    const { first, second } = renderTwo();
    hover(first);
    act(() => void vi.advanceTimersByTime(700));
    press(first);
    fireEvent.pointerLeave(first, { pointerType: "mouse" });
    expect(screen.queryByRole("tooltip")).toBeNull();
    act(() => void vi.advanceTimersByTime(200));
    hover(second);
    expect(screen.getByRole("tooltip")).toHaveTextContent("Delete image");

    press(second);
    act(() => void vi.advanceTimersByTime(400));
    hover(first);
    expect(screen.queryByRole("tooltip")).toBeNull();
    act(() => void vi.advanceTimersByTime(700));
    expect(screen.getByRole("tooltip")).toHaveTextContent("Drag to reorder");
  });
});
