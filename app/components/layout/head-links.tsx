/**
 * On a slow link the favicon and manifest would share the bandwidth of the largest photo, so on public pages
 * the paint gate (app/islands/page-script.ts) adds them once it is on screen; <noscript> carries them otherwise.
 */
export const EAGERLY_FETCHED_HEAD_LINKS = [
  { rel: "icon", href: "/favicon.ico", sizes: "32x32" },
  { rel: "icon", href: "/icon.svg", type: "image/svg+xml" },
  { rel: "manifest", href: "/manifest.webmanifest" },
] as const satisfies readonly Record<string, string>[];

const APPLE_TOUCH_ICON = { rel: "apple-touch-icon", href: "/apple-touch-icon.png" } as const;

export function HeadLinks({ afterLargestPaint }: { afterLargestPaint: boolean }) {
  const eager = EAGERLY_FETCHED_HEAD_LINKS.map((link) => <link key={link.href} {...link} />);
  return (
    <>
      <link {...APPLE_TOUCH_ICON} />
      {afterLargestPaint ? <noscript>{eager}</noscript> : eager}
    </>
  );
}
