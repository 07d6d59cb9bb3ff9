export function meta() {
  return [{ title: "Website Management" }, { name: "robots", content: "noindex, nofollow" }];
}

export default function Admin() {
  return (
    <div className="mx-auto max-w-7xl px-4 py-16">
      <h1 className="text-3xl font-bold">Admin Access</h1>
    </div>
  );
}
