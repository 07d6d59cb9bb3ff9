import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PlainToasts } from "./plain-toasts";
import { toast } from "./use-toast";

describe("PlainToasts (the toasts when the notification area's script cannot come)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    // The toast store is shared by the module: let every toast go before the next test.
    act(() => vi.runAllTimers());
    vi.useRealTimers();
  });

  it("shows an error as an alert with its title and description, for 5 seconds (spec §9)", () => {
    render(<PlainToasts />);
    act(() => {
      toast({
        title: "Error",
        description: "Failed to send message. Please try again or call directly.",
        variant: "destructive",
      });
    });
    expect(screen.getByRole("alert").textContent).toBe(
      "Error Failed to send message. Please try again or call directly.×",
    );
    act(() => vi.advanceTimersByTime(4_999));
    expect(screen.queryByRole("alert")).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows other news as a status, and closes it by its button", () => {
    render(<PlainToasts />);
    act(() => {
      toast({ title: "Message Sent", description: "Thank you for your enquiry." });
    });
    expect(screen.getByRole("status").textContent).toContain("Message Sent");
    act(() => fireEvent.click(screen.getByRole("button", { name: "Close notification" })));
    expect(screen.queryByRole("status")).toBeNull();
  });
});
