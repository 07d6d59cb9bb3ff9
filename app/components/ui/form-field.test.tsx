import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { TextField } from "./form-field";

describe("TextField", () => {
  it("is labelled, and describes itself by its hint until there is an error", () => {
    render(<TextField id="new-password" label="New password" hint="At least 8 characters." type="password" />);
    const input = screen.getByLabelText("New password");
    expect(input).toHaveAttribute("type", "password");
    expect(input).not.toHaveAttribute("aria-invalid");
    expect(input).toHaveAccessibleDescription("At least 8 characters.");
  });

  it("with an error: marked invalid, described by the error alone (the hint gives way, nothing points at a missing element)", () => {
    render(<TextField id="new-password" label="New password" hint="At least 8 characters." error="Too short" />);
    const input = screen.getByLabelText("New password");
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(input).toHaveAttribute("aria-describedby", "new-password-error");
    expect(input).toHaveAccessibleDescription("Too short");
    expect(screen.queryByText("At least 8 characters.")).toBeNull();
  });

  it("puts className on the wrapper and passes the rest to the input", () => {
    const { container } = render(
      <TextField id="phone" label="Phone" className="sm:col-span-2" name="phone" defaultValue="021" />,
    );
    expect(container.firstElementChild).toHaveClass("sm:col-span-2");
    const input = screen.getByLabelText("Phone");
    expect(input).toHaveAttribute("name", "phone");
    expect(input).toHaveValue("021");
    expect(input).not.toHaveAttribute("aria-describedby");
  });
});
