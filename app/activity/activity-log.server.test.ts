import { describe, expect, it } from "vitest";
import { describeActivity } from "./activity-kinds";
import { networkPrefix } from "./activity-log.server";

describe("networkPrefix: what the security log keeps of an address", () => {
  it.each([
    ["198.51.100.77", "198.51.100.0/24"],
    ["::ffff:198.51.100.77", "198.51.100.0/24"],
    ["2001:db8:abcd:12:34::77", "2001:db8:abcd::/48"],
    ["2001:0db8:0000:0012::1", "2001:db8:0::/48"],
    ["not an address", null],
    ["", null],
  ])("%s → %s", (address, expected) => {
    expect(networkPrefix(address)).toBe(expected);
  });
});

describe("describeActivity: the owner's words", () => {
  it("names the passkey, the gallery and how many", () => {
    expect(describeActivity("sign-in.passkey", "success", { passkey: "Mark's iPhone" })).toBe(
      "Signed in with passkey 'Mark's iPhone'",
    );
    expect(describeActivity("image.deleted", "success", { gallery: "Hard Landscaping", count: 1 })).toBe(
      "Deleted 1 photo from Hard Landscaping",
    );
    expect(describeActivity("image.uploaded", "success", { gallery: "Veneer Stonework", count: 3 })).toBe(
      "Uploaded 3 photos to Veneer Stonework",
    );
    expect(describeActivity("sign-in.locked", "refused", {}, 12)).toBe("Sign-in refused: too many attempts (12 times)");
  });

  it("says when a change was made on the server rather than in the dashboard", () => {
    expect(describeActivity("account.password-changed", "success", { via: "server" })).toBe(
      "Changed the password on the server",
    );
    expect(describeActivity("account.password-changed", "success", {})).toBe("Changed the password");
    expect(describeActivity("two-step.turned-off", "success", { via: "server" })).toBe(
      "Turned off two-step verification and removed every passkey on the server",
    );
  });
});
