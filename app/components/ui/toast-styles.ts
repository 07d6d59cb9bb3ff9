import { cn } from "~/lib/cn";
import type { ToastVariant } from "./use-toast";

// Shared by the Toaster and PlainToasts (its stand-in when Radix cannot load): the same box, same place.

/** On a phone over the sticky site header; from the md breakpoint, bottom right (decision 0063). */
export const TOAST_VIEWPORT_CLASSES =
  "fixed inset-x-0 top-0 z-[100] m-0 flex w-full list-none flex-col gap-2 p-1 outline-none md:top-auto md:bottom-0 md:left-auto md:max-w-[420px] md:p-4";

export function toastBoxClasses(variant: ToastVariant | undefined): string {
  return cn(
    "relative overflow-hidden rounded-lg border py-2 pr-12 pl-3 shadow-lg md:p-4 md:pr-12",
    variant === "destructive" ? "border-red-800 bg-red-700 text-white" : "border-stone-200 bg-white text-stone-900",
  );
}

/** One paragraph on a phone ("Content Updated Your changes have…"), two lines from md up. */
export const TOAST_TEXT_CLASSES = "min-h-10 text-sm md:grid md:min-h-0 md:gap-1";

/** A 44 px close button in the box's top right corner. */
export function toastCloseClasses(variant: ToastVariant | undefined): string {
  return cn(
    "absolute top-0.5 right-0.5 inline-flex h-11 w-11 items-center justify-center rounded-md",
    variant === "destructive" ? "text-white hover:bg-red-800" : "text-stone-600 hover:bg-stone-100",
  );
}
