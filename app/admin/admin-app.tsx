import { QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { Spinner } from "~/components/ui/spinner";
import { TooltipProvider } from "~/components/ui/tooltip";
import { AdminShell } from "./admin-dashboard";
import { BackgroundUploadsProvider } from "./galleries/background-uploads";
import { LoginPage } from "./account/login-page";
import { createAdminQueryClient } from "./query-client";
import { UnsavedChangesProvider } from "./unsaved-changes";
import { UploadTray } from "./galleries/upload-tray";
import { useCurrentUser } from "./use-current-user";

/** The whole admin area: its own QueryClient, then the login page or the dashboard. */
export function AdminApp({ navigate }: { navigate?: (url: string) => void }) {
  const [queryClient] = useState(() => createAdminQueryClient({ navigate }));
  return (
    <QueryClientProvider client={queryClient}>
      <TooltipProvider>
        <div className="mx-auto w-full max-w-6xl px-4 py-8 sm:px-6 sm:py-10 lg:px-8">
          <AuthGate navigate={navigate} />
        </div>
      </TooltipProvider>
    </QueryClientProvider>
  );
}

function AuthGate({ navigate }: { navigate?: (url: string) => void }) {
  const user = useCurrentUser();
  if (user.isPending) {
    return (
      <div role="status" className="flex min-h-[40vh] items-center justify-center gap-3 text-stone-700">
        <Spinner className="h-6 w-6 text-brand-700" />
        <span>Loading...</span>
      </div>
    );
  }
  // Any data counts as signed in (spec §4); no data, or a failed check, shows the login page.
  if (!user.data) return <LoginPage navigate={navigate} />;
  // Photos keep going up whichever view is shown; the tray, mounted once, follows the owner round.
  return (
    <UnsavedChangesProvider>
      <BackgroundUploadsProvider>
        <AdminShell user={user.data} navigate={navigate} />
        <UploadTray />
      </BackgroundUploadsProvider>
    </UnsavedChangesProvider>
  );
}
