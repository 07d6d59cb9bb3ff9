import { LARGEST_PAINT_TIMING } from "./island-loader";
import { LARGEST_PAINT_AT_ATTRIBUTE, PHOTOS_WAIT_ATTRIBUTE } from "./largest-paint-attributes";

/**
 * An inline script in the head of public pages: the page's other photos start only once its
 * largest-paint photo (`elementtiming="largest-paint"`) is on screen, so on a slow link they do not
 * share its bandwidth, and Lighthouse's simulation does not count them before it. It marks <html>
 * with PHOTOS_WAIT_ATTRIBUTE, which app/site.css turns into `display: none` for the photos marked
 * AFTER_LARGEST_PAINT_ATTRIBUTE (a lazy image without a box is not fetched; their <picture> keeps its
 * size, so nothing moves), and removes it:
 * - once the photo has loaded and Chromium reports it painted (Element Timing, as the island loader
 *   waits); at once in a browser without Element Timing, and 3 s after the load at the latest (a
 *   photo off screen, as after a restored scroll position, may never paint);
 * - when the photo fails, at DOMContentLoaded when the page has no such photo, and on `load` when
 *   the photo has not loaded by then.
 * The largest-paint photo itself never waits for a script (its preload and <img> are plain HTML),
 * and without JavaScript the attribute is never set: every photo loads as before.
 * `laterLinks` (the favicon and web manifest: app/components/layout/head-links.tsx) are added to the
 * head at that same moment: browsers fetch them at once, and they too would share its bandwidth.
 * Until then the head holds an empty icon (`data:,`), since a page without one gets /favicon.ico.
 * It also records when that photo loaded, in the page's own clock (LARGEST_PAINT_AT_ATTRIBUTE).
 */
export function largestPaintFirstScript(laterLinks: readonly Record<string, string>[]): string {
  const selector = `img[elementtiming="${LARGEST_PAINT_TIMING}"]`;
  return (
    `(function(){var d=document,h=d.documentElement,s=${JSON.stringify(selector)},done=false,watching=false;` +
    `h.setAttribute("${PHOTOS_WAIT_ATTRIBUTE}","");` +
    // An empty icon meanwhile, or the browser fetches /favicon.ico at once for want of one.
    `var none=d.createElement("link");none.rel="icon";none.href="data:,";d.head.appendChild(none);` +
    `var release=function(){if(done)return;done=true;h.removeAttribute("${PHOTOS_WAIT_ATTRIBUTE}");none.remove();` +
    `${JSON.stringify(laterLinks)}.forEach(function(a){var l=d.createElement("link");for(var k in a)l.setAttribute(k,a[k]);d.head.appendChild(l)})};` +
    `var mine=function(e){var t=e.target;return !!(t&&t.matches&&t.matches(s))};` +
    `var loaded=function(){if(!h.hasAttribute("${LARGEST_PAINT_AT_ATTRIBUTE}"))h.setAttribute("${LARGEST_PAINT_AT_ATTRIBUTE}",String(Math.round(performance.now())));` +
    `if(watching)return;watching=true;` +
    `if(typeof PerformanceObserver!=="function"||PerformanceObserver.supportedEntryTypes.indexOf("element")<0)return release();` +
    `new PerformanceObserver(release).observe({type:"element",buffered:true});setTimeout(release,3000)};` +
    `var settled=function(p){if(p.naturalWidth>0)loaded();else release()};` +
    `d.addEventListener("load",function(e){if(mine(e))loaded()},true);` +
    `d.addEventListener("error",function(e){if(mine(e))release()},true);` +
    `d.addEventListener("DOMContentLoaded",function(){var p=d.querySelector(s);if(!p)release();else if(p.complete)settled(p)});` +
    `addEventListener("load",function(){var p=d.querySelector(s);if(!p||!p.complete)release();else settled(p)})})()`
  );
}
