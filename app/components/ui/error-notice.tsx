import type { ReactNode } from "react";

/** A list that could not be loaded: announced at once, shown where the list would be. */
export function ErrorNotice({ children }: { children: ReactNode }) {
  return (
    <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-6 text-center text-red-800">
      {children}
    </p>
  );
}
