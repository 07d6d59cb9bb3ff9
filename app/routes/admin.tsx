import { AdminApp } from "~/admin/admin-app";

export function meta() {
  return [{ title: "Website Management" }, { name: "robots", content: "noindex, nofollow" }];
}

export function headers() {
  return { "Cache-Control": "no-store" };
}

export default function Admin() {
  return (
    <>
      <noscript>
        <div className="mx-auto max-w-xl px-4 pt-10">
          <p className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-stone-900">
            The admin area needs JavaScript. Please turn JavaScript on in your browser, then reload this page.
          </p>
        </div>
      </noscript>
      <AdminApp />
    </>
  );
}
