import type { Page } from "@playwright/test";

/**
 * The admin's controls as the owner's thumb meets them, measured in the page:
 * what counts as a control, where the admin's screens are, and each
 * control's tappable box.
 */

type Box = { x: number; y: number; width: number; height: number };

/** A control, the box a tap lands in, and the part of that box on screen (not scrolled out of its window or list). */
export type ControlBox = Box & { control: string; visible: Box | null };

/**
 * Every visible, enabled button, link, form control and <summary> of the
 * admin's screens (its part of the page, its open dialogs, its
 * notifications; not the site's header, nor its footer unless `footer`), with the box a
 * tap lands in:
 * - a checkbox or radio inside its <label>: the label's box;
 * - a visually hidden file input: its label's box;
 * - a link inside running text: left out (WCAG 2.5.8 exempts it).
 * Behind an open modal, the page is inert: only the modal's controls count.
 * `openDisclosures` opens every <details> first, so what they hold is measured too.
 */
export function adminControls(
  page: Page,
  options: { openDisclosures?: boolean; footer?: boolean } = {},
): Promise<ControlBox[]> {
  return page.evaluate(({ openDisclosures, footer }) => {
    const CONTROLS =
      'button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="link"], [role="checkbox"], [role="switch"], [role="tab"], [role="menuitem"]';
    const ROOTS = `main, [role="dialog"], [role="alertdialog"], [role="region"][aria-label^="Notifications"]${footer ? ", footer" : ""}`;
    const roots = [...document.querySelectorAll(ROOTS)].filter(
      (root) => !root.closest("[inert], [aria-hidden='true']"),
    );
    if (openDisclosures)
      for (const root of roots) for (const details of root.querySelectorAll("details")) details.open = true;

    const describe = (element: Element) =>
      `<${element.tagName.toLowerCase()}> ${(element.getAttribute("aria-label") ?? element.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 50)}`;
    const isInline = (node: Node) => node instanceof Element && getComputedStyle(node).display.startsWith("inline");
    /** A link with words of its sentence around it, in the same line box. */
    const inRunningText = (link: Element) =>
      [...(link.parentElement?.childNodes ?? [])].some(
        (node) =>
          node !== link &&
          (node.nodeType === Node.TEXT_NODE || isInline(node)) &&
          (node.textContent ?? "").trim().length > 0,
      ) && isInline(link);
    /** What a tap lands on for this control. */
    const tappable = (control: Element): Element => {
      if (control instanceof HTMLInputElement) {
        const wrapping = [...(control.labels ?? [])].find((label) => label.contains(control));
        if ((control.type === "checkbox" || control.type === "radio") && wrapping) return wrapping;
        const box = control.getBoundingClientRect();
        if (control.type === "file" && (box.width < 2 || box.height < 2) && control.labels?.[0])
          return control.labels[0];
      }
      return control;
    };

    /** The part of the box inside every scrolling ancestor and the window. */
    const visiblePart = (element: Element, box: DOMRect) => {
      let [left, top, right, bottom] = [
        Math.max(box.left, 0),
        Math.max(box.top, 0),
        Math.min(box.right, innerWidth),
        Math.min(box.bottom, innerHeight),
      ];
      for (let ancestor = element.parentElement; ancestor; ancestor = ancestor.parentElement) {
        const style = getComputedStyle(ancestor);
        if (style.overflowX === "visible" && style.overflowY === "visible") continue;
        const clip = ancestor.getBoundingClientRect();
        [left, top, right, bottom] = [
          Math.max(left, clip.left),
          Math.max(top, clip.top),
          Math.min(right, clip.right),
          Math.min(bottom, clip.bottom),
        ];
      }
      return right > left && bottom > top ? { x: left, y: top, width: right - left, height: bottom - top } : null;
    };

    const found = new Map<Element, ControlBox>();
    for (const root of roots) {
      for (const control of root.querySelectorAll(CONTROLS)) {
        if (control.closest("[inert], [aria-hidden='true']")) continue;
        if (control.matches(":disabled") || control.getAttribute("aria-disabled") === "true") continue;
        if (!control.checkVisibility({ visibilityProperty: true })) continue;
        if (control.tagName === "A" && inRunningText(control)) continue;
        const target = tappable(control);
        const box = target.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        found.set(target, {
          control: describe(control),
          x: box.x,
          y: box.y,
          width: box.width,
          height: box.height,
          visible: visiblePart(target, box),
        });
      }
    }
    return [...found.values()];
  }, options);
}

/** The controls (the shared footer's too) smaller than 44 × 44 CSS px (with half a pixel for rounding). */
export async function controlsTooSmallToTap(page: Page): Promise<string[]> {
  const MIN = 44 - 0.5;
  return (await adminControls(page, { openDisclosures: true, footer: true }))
    .filter((box) => box.width < MIN || box.height < MIN)
    .map((box) => `${box.control}: ${box.width.toFixed(1)} × ${box.height.toFixed(1)}`);
}

/**
 * What the owner reads on the admin's screen that is not plain words: an IP
 * address, a network prefix, "KB" outside the spec's upload list ("Chosen
 * files"), or a percentage above 100. Everything under "Details for whoever
 * runs your website" is left out: that is where such words belong. All
 * other disclosures are opened first; text for screen readers counts too.
 */
export function technicalWordsShown(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const DETAILS = "Details for whoever runs your website";
    const ROOTS = 'main, [role="dialog"], [role="alertdialog"], [data-variant]';
    const CHECKS: [string, RegExp, (match: RegExpExecArray, node: Element) => boolean][] = [
      ["an IP address", /\b(?:\d{1,3}\.){3}\d{1,3}\b/g, () => true],
      [
        "an IP address",
        /\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){3,7}\b|[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*::(?:[0-9a-f]{1,4})?/gi,
        () => true,
      ],
      ["a network prefix", /(?:^|[\s(]|[0-9a-f:.])\/(?:\d|[1-9]\d|1[01]\d|12[0-8])\b/gi, () => true],
      ["KB", /\bKB\b/g, (_, node) => !node.closest('[aria-label="Chosen files"]')],
      ["a percentage above 100", /(\d[\d,]*(?:\.\d+)?)\s?%/g, (match) => Number(match[1]!.replace(/,/g, "")) > 100],
    ];
    const roots = [...document.querySelectorAll(ROOTS)].filter(
      (root) => !root.closest("[inert], [aria-hidden='true']"),
    );
    for (const root of roots) for (const details of root.querySelectorAll("details")) details.open = true;
    const technical = (element: Element) =>
      [...ancestors(element)].some(
        (a) => a.tagName === "DETAILS" && a.querySelector(":scope > summary")?.textContent?.trim() === DETAILS,
      );
    function* ancestors(element: Element) {
      for (let at: Element | null = element; at; at = at.parentElement) yield at;
    }

    const texts: { text: string; element: Element }[] = [];
    for (const root of roots) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement!;
        // The owner's own words in a field are his, not the admin's.
        if (element.closest("textarea, script, style")) continue;
        if (!element.checkVisibility({ visibilityProperty: true }) || technical(element)) continue;
        texts.push({ text: node.textContent ?? "", element });
      }
      for (const element of root.querySelectorAll("[aria-label], [title], [alt], [placeholder]")) {
        if (technical(element)) continue;
        for (const name of ["aria-label", "title", "alt", "placeholder"]) {
          const value = element.getAttribute(name);
          if (value) texts.push({ text: value, element });
        }
      }
    }
    const found: string[] = [];
    for (const { text, element } of texts) {
      for (const [what, pattern, counts] of CHECKS) {
        pattern.lastIndex = 0;
        for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
          if (counts(match, element)) found.push(`${what}: "${text.trim().slice(0, 120)}"`);
        }
      }
    }
    return [...new Set(found)];
  });
}
