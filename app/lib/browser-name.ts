/**
 * A browser and device in the owner's words ("Chrome on an Android phone"): the one describer of user agents,
 * so the log, the e-mails and passkey names agree. Only the first 256 characters are read.
 */
export const USER_AGENT_MAX_CHARS = 256;

/** Most specific first: Edge and Opera also say "Chrome", Chrome also says "Safari". */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\b(?:OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(?:Firefox|FxiOS)\//, "Firefox"],
  [/\b(?:HeadlessChrome|Chrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

/** Most specific first: an iPhone says "like Mac OS X", an Android phone says "Linux". */
const DEVICES: readonly [RegExp, string][] = [
  [/\biPhone\b/, "an iPhone"],
  [/\biPad\b/, "an iPad"],
  // Android phones' browsers say "Mobile"; tablets' do not.
  [/\bAndroid\b.*\bMobile\b/, "an Android phone"],
  [/\bAndroid\b/, "an Android tablet"],
  [/\bCrOS\b/, "a Chromebook"],
  [/\bWindows\b/, "a Windows computer"],
  [/\bMacintosh\b|\bMac OS X\b/, "a Mac"],
  [/\bLinux\b/, "a Linux computer"],
];

/** "<browser> on <device>", the browser alone, "A browser on <device>", or null when neither is known. */
export function describeBrowser(userAgent: string | null | undefined): string | null {
  const text = (userAgent ?? "").slice(0, USER_AGENT_MAX_CHARS);
  const browser = BROWSERS.find(([pattern]) => pattern.test(text))?.[1];
  const device = DEVICES.find(([pattern]) => pattern.test(text))?.[1];
  if (browser && device) return `${browser} on ${device}`;
  if (browser) return browser;
  if (device) return `A browser on ${device}`;
  return null;
}
