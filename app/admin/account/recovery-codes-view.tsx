import { Copy, Download } from "lucide-react";
import { Button } from "~/components/ui/button";
import { toast } from "~/components/ui/use-toast";
import { identity } from "~/identity";

/** The 10 recovery codes, shown once, with Download (.txt) and Copy. */
export function RecoveryCodesView({ codes }: { codes: string[] }) {
  const text = [
    `${identity.businessName} website admin: two-step recovery codes`,
    "Each code works once.",
    "",
    ...codes,
    "",
  ].join("\n");
  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = "recovery-codes.txt";
    link.click();
    URL.revokeObjectURL(url);
  }
  async function copy() {
    try {
      await navigator.clipboard.writeText(codes.join("\n"));
      toast({ title: "Copied", description: "The recovery codes are on the clipboard." });
    } catch {
      toast({ title: "Copy Failed", description: "Select the codes and copy them by hand.", variant: "destructive" });
    }
  }
  return (
    <div className="space-y-4">
      <p className="text-sm text-stone-700">
        Keep these somewhere safe, away from your phone. Each one signs in once if the phone is lost. They are shown
        only now.
      </p>
      <ol
        aria-label="Recovery codes"
        className="grid grid-cols-2 gap-2 rounded-md bg-stone-50 p-3 font-mono text-base ring-1 ring-stone-200"
      >
        {codes.map((code) => (
          <li key={code} className="select-all">
            {code}
          </li>
        ))}
      </ol>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Button type="button" variant="outline" onClick={download}>
          <Download aria-hidden="true" className="h-4 w-4" />
          Download (.txt)
        </Button>
        <Button type="button" variant="outline" onClick={() => void copy()}>
          <Copy aria-hidden="true" className="h-4 w-4" />
          Copy
        </Button>
      </div>
    </div>
  );
}
