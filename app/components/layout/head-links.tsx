/**
 * The links every page's head carries for its icons and web manifest. A browser fetches the
 * favicon and the manifest at once; on a public page on a slow link they would share the
 * bandwidth of its largest photo, so there the paint gate (app/islands/page-script.ts)
 * adds them once that photo is on screen, and <noscript> carries them for a browser without
 * scripts. The apple-touch-icon is only read when someone adds the site to a home screen.
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
