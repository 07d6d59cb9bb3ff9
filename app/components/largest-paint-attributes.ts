// The names of the wait for the largest paint (app/islands/page-script.ts), apart from its script so
// the hero island and the photos' markup import only these.

/** On the page's largest-paint photo: the other photos and the islands wait until it is on screen (Element Timing). */
export const LARGEST_PAINT_TIMING = "largest-paint";
/** On <html> while the page's other photos wait for its largest-paint photo (app/site.css hides them). */
export const PHOTOS_WAIT_ATTRIBUTE = "data-photos-wait";
/** On every photo that waits: every <ResponsiveImage> but the largest paint. */
export const AFTER_LARGEST_PAINT_ATTRIBUTE = "data-after-largest-paint";
/** On <html>: `performance.now()` when the largest-paint photo loaded (the hero's first turn counts from it). */
export const LARGEST_PAINT_AT_ATTRIBUTE = "data-largest-paint-at";
