import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import { AdminApp } from "./admin-app";
import { deferred, json, mockFetch } from "./test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const USER = { id: "u1", username: "owner" };

/** Signed out, the owner types a username and `password`; `/api/login` answers with `login`. */
async function typeSignIn(password: string, login: () => Response | Promise<Response>) {
  const fetched = mockFetch([
    { method: "GET", path: "/api/auth/user", respond: () => json(401, { message: "Unauthorized" }) },
    { method: "POST", path: "/api/login", respond: login },
  ]);
  const navigate = vi.fn();
  render(<AdminApp navigate={navigate} />);
  await userEvent.type(await screen.findByLabelText("Username"), "owner");
  await userEvent.type(screen.getByLabelText("Password"), password);
  return { ...fetched, navigate };
}

/** The toast a refused sign-in shows, with the server's words. */
const loginFailedToast = (description: string) =>
  waitFor(() => expect(toast).toHaveBeenCalledWith({ title: "Login Failed", description, variant: "destructive" }));

describe("AdminApp sign-in", () => {
  beforeEach(() => {
    vi.mocked(toast).mockClear();
    window.history.replaceState(null, "", "/admin");
    window.scrollTo = vi.fn() as typeof window.scrollTo;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("shows 'Loading...' until the auth check answers, then the login page when signed out", async () => {
    const auth = deferred<Response>();
    const { calls } = mockFetch([{ method: "GET", path: "/api/auth/user", respond: () => auth.promise }]);
    render(<AdminApp navigate={vi.fn()} />);
    expect(screen.getByRole("status")).toHaveTextContent("Loading...");
    await act(async () => auth.resolve(json(401, { message: "Unauthorized" })));
    expect(await screen.findByRole("heading", { level: 1, name: "Admin Access" })).toBeInTheDocument();
    expect(screen.getByText("Sign in to manage your website content")).toBeInTheDocument();
    expect(screen.getByLabelText("Username")).toBeInTheDocument();
    expect(screen.getByLabelText("Password")).toHaveAttribute("type", "password");
    // Not retried (spec §4), and a 401 here is not the 'Unauthorized' flow.
    expect(calls.filter((c) => c.url === "/api/auth/user")).toHaveLength(1);
    expect(toast).not.toHaveBeenCalled();
  });

  it("validates both fields in place with the schema's messages", async () => {
    const { calls } = mockFetch([
      { method: "GET", path: "/api/auth/user", respond: () => json(401, { message: "Unauthorized" }) },
    ]);
    render(<AdminApp navigate={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Sign In" }));
    const username = screen.getByLabelText("Username");
    const password = screen.getByLabelText("Password");
    expect(screen.getByText("Username is required")).toBeInTheDocument();
    expect(screen.getByText("Password is required")).toBeInTheDocument();
    expect(username).toHaveAttribute("aria-invalid", "true");
    expect(username).toHaveAccessibleDescription("Username is required");
    expect(password).toHaveAccessibleDescription("Password is required");
    expect(username).toHaveFocus();

    await userEvent.type(username, "owner");
    await userEvent.click(screen.getByRole("button", { name: "Sign In" }));
    expect(screen.queryByText("Username is required")).toBeNull();
    expect(username).not.toHaveAttribute("aria-invalid");
    expect(screen.getByText("Password is required")).toBeInTheDocument();
    expect(password).toHaveFocus();
    expect(calls.some((c) => c.url === "/api/login")).toBe(false);
  });

  it("shows 'Signing In...' while pending, then reloads /admin", async () => {
    const login = deferred<Response>();
    const { calls, navigate } = await typeSignIn("secret words", () => login.promise);
    fireEvent.submit(screen.getByRole("button", { name: "Sign In" }));
    const pending = await screen.findByRole("button", { name: "Signing In..." });
    expect(pending).toBeDisabled();
    expect(calls.find((c) => c.url === "/api/login")?.body).toEqual({ username: "owner", password: "secret words" });
    await act(async () => login.resolve(json(200, USER)));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith("/admin"));
    expect(navigate).toHaveBeenCalledTimes(1);
  });

  it("says 'Login Failed' on a wrong password, without the 'Unauthorized' flow", async () => {
    // A fake clock that also follows real time (so typing and waitFor run as usual); the check
    // below then runs every timer the failure left pending, the 'Unauthorized' reload's included.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { navigate } = await typeSignIn("wrong", () => json(401, { message: "Invalid username or password" }));
    await userEvent.click(screen.getByRole("button", { name: "Sign In" }));
    await loginFailedToast("Invalid username or password. Please try again.");
    expect(toast).toHaveBeenCalledTimes(1);
    expect(screen.getByRole("button", { name: "Sign In" })).toBeEnabled();
    await act(() => vi.runOnlyPendingTimersAsync());
    expect(navigate).not.toHaveBeenCalled();
  });

  it("passes on the server's advice when sign-in is throttled", async () => {
    const throttled = "Too many failed sign-in attempts. Please wait and try again later.";
    await typeSignIn("wrong", () => json(429, { message: throttled }));
    await userEvent.click(screen.getByRole("button", { name: "Sign In" }));
    await loginFailedToast(throttled);
  });
});

describe("AdminApp when signed in", () => {
  beforeEach(() => {
    vi.mocked(toast).mockClear();
    window.history.replaceState(null, "", "/admin");
    window.scrollTo = vi.fn() as typeof window.scrollTo;
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows the dashboard with its three cards and every button", async () => {
    mockFetch([{ method: "GET", path: "/api/auth/user", respond: () => json(200, USER) }]);
    render(<AdminApp navigate={vi.fn()} />);
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "View Website" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("button", { name: "Logout" })).toBeInTheDocument();
    const text = screen.getByRole("region", { name: "Edit Website Text" });
    for (const label of [
      "Homepage",
      "Stonework",
      "Landscaping",
      "About/Contact Page",
      "Footer",
      "Contact Information",
    ]) {
      expect(text).toContainElement(screen.getByRole("button", { name: label }));
    }
    const galleries = screen.getByRole("region", { name: "Manage Photo Galleries" });
    for (const label of ["Traditional Stonework", "Veneer Stonework", "Hard Landscaping", "Homepage Hero Images"]) {
      expect(galleries).toContainElement(screen.getByRole("button", { name: label }));
    }
    expect(screen.getByRole("region", { name: "Contact Form Submissions" })).toContainElement(
      screen.getByRole("button", { name: "View Submissions" }),
    );
  });

  it("opens a sub-view in place, mirrors it in ?view=, and goes back with focus on the opener", async () => {
    mockFetch([
      { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
      { method: "GET", path: /^\/api\/admin\/contact-submissions\?/, respond: () => json(200, []) },
    ]);
    render(<AdminApp navigate={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "View Submissions" }));
    const heading = await screen.findByRole("heading", { level: 1, name: "Contact Form Submissions" });
    expect(heading).toHaveFocus();
    expect(window.location.search).toBe("?view=submissions");
    expect(await screen.findByText("No contact submissions yet")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(window.location.search).toBe("");
    expect(screen.getByRole("button", { name: "View Submissions" })).toHaveFocus();
  });

  it("adds a history entry per view, so the browser's Back and Forward move between dashboard and view", async () => {
    mockFetch([
      { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
      { method: "GET", path: /^\/api\/admin\/contact-submissions\?/, respond: () => json(200, []) },
    ]);
    render(<AdminApp navigate={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "View Submissions" }));
    await screen.findByRole("heading", { level: 1, name: "Contact Form Submissions" });
    expect(window.location.search).toBe("?view=submissions");

    act(() => window.history.back());
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(window.location.search).toBe("");
    await waitFor(() => expect(screen.getByRole("button", { name: "View Submissions" })).toHaveFocus());

    act(() => window.history.forward());
    expect(await screen.findByRole("heading", { level: 1, name: "Contact Form Submissions" })).toBeInTheDocument();
    expect(window.location.search).toBe("?view=submissions");
  });

  it("starts on the view named in the address, and its Back button replaces the address with the dashboard", async () => {
    window.history.replaceState(null, "", "/admin?view=content:footer");
    mockFetch([
      { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
      {
        method: "GET",
        path: "/api/content/footer.description",
        respond: () =>
          json(200, { key: "footer.description", content: "Stored footer", updatedAt: null, isDefault: false }),
      },
    ]);
    render(<AdminApp navigate={vi.fn()} />);
    expect(await screen.findByRole("heading", { level: 1, name: "Content Editor" })).toBeInTheDocument();
    expect(await screen.findByDisplayValue("Stored footer")).toBeInTheDocument();
    const entries = window.history.length;
    await userEvent.click(screen.getAllByRole("button", { name: "Back to Dashboard" })[0]!);
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(window.location.pathname + window.location.search).toBe("/admin");
    expect(window.history.length).toBe(entries);
  });

  it("logs out, then goes to /", async () => {
    const { calls } = mockFetch([
      { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
      { method: "POST", path: "/api/logout", respond: () => new Response(null, { status: 204 }) },
    ]);
    const navigate = vi.fn();
    render(<AdminApp navigate={navigate} />);
    await userEvent.click(await screen.findByRole("button", { name: "Logout" }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith("/"));
    expect(calls.some((c) => c.method === "POST" && c.url === "/api/logout")).toBe(true);
  });
});
