import { useIsFetching, useMutation } from "@tanstack/react-query";
import { ExternalLink, FileText, Images, Inbox, LogOut } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import type { CurrentUser } from "~/auth/login-schema";
import { buttonClasses, Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { OWNER_LISTS, ownerListByKey } from "~/content/lists";
import { PAGE_GROUP_LABELS, PAGE_GROUPS } from "~/content/sections";
import { GALLERY_TITLES, GALLERY_TYPES } from "~/galleries/gallery";
import { apiRequest } from "~/lib/api-client";
import { cn } from "~/lib/cn";
import { AccountCard } from "./account/account-security";
import { ActivityCard } from "./activity/activity-card";
import { DashboardCard, ViewHeading, cardClasses } from "./admin-ui";
import { useConfirmLeaveWhileUploading } from "./galleries/background-uploads";
import { AnalyticsCard } from "./visits/analytics-card";
import { BackupCard } from "./backups/backup-card";
import { BucketPrivacyNotice } from "./backups/bucket-privacy-notice";
import { ContentEditor } from "./texts/content-editor";
import { DashboardEmailNotice, EmailCard } from "./email/email-card";
import { GalleryManager } from "./galleries/gallery-manager";
import { ListManager } from "./lists/list-manager";
import { HANDLES_OWN_401, hardNavigate } from "./query-client";
import { SettingsList } from "./settings-list";
import { SignInActivity } from "./activity/sign-in-activity";
import { SubmissionsView } from "./enquiries/submissions-view";
import { TemporaryPasswordBanner } from "./account/temporary-password-banner";
import { TwoStepRestoreNotice } from "./account/two-step-section";
import { UnreadCount } from "./enquiries/unread-count";
import { useUnsavedChangesGuard } from "./unsaved-changes";
import { DASHBOARD, openerIdFor, viewFromParam, viewToParam, type AdminView } from "./view";

/** The address of a view: /admin, or /admin?view=… so a reload comes back to it. */
function urlOf(view: AdminView): URL {
  const url = new URL(window.location.href);
  const param = viewToParam(view);
  if (param) url.searchParams.set("view", param);
  else url.searchParams.delete("view");
  return url;
}

const viewInAddress = () => viewFromParam(new URLSearchParams(window.location.search).get("view"));

/** Marks the history entries this admin added, so its Back button can step back through them. */
const OPENED_FROM_DASHBOARD = "cornerstoneAdminView";

/** The dashboard or one sub-view (spec §4); a view adds a history entry so a phone's Back returns to the dashboard. */
export function AdminShell({ user, navigate = hardNavigate }: { user: CurrentUser; navigate?: (url: string) => void }) {
  const [view, setView] = useState<AdminView>(() => (typeof window === "undefined" ? DASHBOARD : viewInAddress()));
  const [returnFocusTo, setReturnFocusTo] = useState<string | null>(null);
  // Change Password opens in the Account view, from its button or from the dashboard's temporary-password banner.
  const [passwordDialogOpen, setPasswordDialogOpen] = useState(false);
  const unsaved = useUnsavedChangesGuard();
  useEffect(() => {
    // The browser's Back and Forward buttons move between the dashboard and the views.
    const followAddress = () => {
      if (unsaved?.hasUnsaved()) {
        // Unsaved text: put this view's address back, and leave only if the owner discards it.
        window.history.pushState({ ...window.history.state, [OPENED_FROM_DASHBOARD]: true }, "", urlOf(view));
        unsaved.confirmLeave(() => window.history.back());
        return;
      }
      const next = viewInAddress();
      setView((current) => {
        if (next.kind === "dashboard" && current.kind !== "dashboard") setReturnFocusTo(openerIdFor(current));
        return next;
      });
    };
    window.addEventListener("popstate", followAddress);
    return () => window.removeEventListener("popstate", followAddress);
  }, [unsaved, view]);

  const open = (next: AdminView) => {
    setView(next);
    const url = urlOf(next);
    if (url.href !== window.location.href) {
      // Keeps React Router's own entry state, so its history index stays right.
      window.history.pushState({ ...window.history.state, [OPENED_FROM_DASHBOARD]: true }, "", url);
    }
    window.scrollTo({ top: 0 });
  };
  const back = () => {
    if (unsaved) unsaved.confirmLeave(leaveView);
    else leaveView();
  };
  const leaveView = () => {
    setReturnFocusTo(openerIdFor(view));
    if (window.history.state?.[OPENED_FROM_DASHBOARD]) {
      // Step back to the dashboard's entry; popstate shows it.
      window.history.back();
      return;
    }
    // Opened straight from an address (a reload or a link): replace it with the dashboard.
    setView(DASHBOARD);
    window.history.replaceState(window.history.state, "", urlOf(DASHBOARD));
    window.scrollTo({ top: 0 });
  };

  const changeTemporaryPassword = () => {
    open({ kind: "account" });
    setPasswordDialogOpen(true);
  };

  switch (view.kind) {
    case "content":
      return <ContentEditor key={view.group} group={view.group} onBack={back} />;
    case "gallery":
      return <GalleryManager key={view.galleryType} galleryType={view.galleryType} onBack={back} />;
    case "submissions":
      return <SubmissionsView onBack={back} />;
    case "list":
      return <ListManager key={view.list} list={ownerListByKey(view.list)!} onBack={back} />;
    case "email":
      return <EmailCard onBack={back} />;
    case "account":
      return (
        <AccountCard
          username={user.username}
          navigate={navigate}
          passwordDialog={{ open: passwordDialogOpen, setOpen: setPasswordDialogOpen }}
          onBack={back}
        />
      );
    case "backups":
      return <BackupCard onBack={back} />;
    case "visits":
      return <AnalyticsCard onBack={back} />;
    case "activity":
      return <ActivityCard onBack={back} />;
    case "dashboard":
      return (
        <Dashboard
          user={user}
          onOpen={open}
          focusId={returnFocusTo}
          navigate={navigate}
          onChangeTemporaryPassword={changeTemporaryPassword}
        />
      );
  }
}

const choiceClasses = buttonClasses("outline", "md", "w-full justify-start px-3 text-left");

/** Spec §2 Admin dashboard: its three cards, any notice, then "Settings and reports". */
function Dashboard({
  user,
  onOpen,
  focusId,
  navigate,
  onChangeTemporaryPassword,
}: {
  user: CurrentUser;
  onOpen: (view: AdminView) => void;
  focusId: string | null;
  navigate: (url: string) => void;
  onChangeTemporaryPassword: () => void;
}) {
  const rootRef = useRef<HTMLDivElement>(null);
  // Back from a sub-view: focus returns to the button or row that opened it.
  useEffect(() => {
    if (focusId) rootRef.current?.querySelector<HTMLElement>(`#${CSS.escape(focusId)}`)?.focus();
  }, [focusId]);

  // Logging out while photos go up would stop them: asked first.
  const confirmLeave = useConfirmLeaveWhileUploading();
  const logout = useMutation({
    meta: HANDLES_OWN_401,
    mutationFn: () => apiRequest("POST", "/api/logout"),
    onSuccess: () => navigate("/"),
    onError: () => toast({ title: "Logout failed", description: "Please try again.", variant: "destructive" }),
  });

  // Busy until every query's first answer is in: late notices push the cards down under a tap.
  const firstLoads = useIsFetching({ predicate: (query) => query.state.status === "pending" });

  return (
    <div ref={rootRef} className="space-y-5" aria-busy={firstLoads > 0 || undefined}>
      <TwoStepRestoreNotice />
      <TemporaryPasswordBanner onChange={onChangeTemporaryPassword} />
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <ViewHeading>Website Management</ViewHeading>
          <p className="mt-1 text-stone-700">
            Signed in as <span className="font-semibold">{user.username}</span>
          </p>
        </div>
        <div className="flex gap-2">
          <a href="/" className={buttonClasses("outline", "md", "flex-1 sm:flex-none")}>
            <ExternalLink aria-hidden="true" className="h-4 w-4" />
            View Website
          </a>
          <Button
            variant="secondary"
            onClick={() => confirmLeave(() => logout.mutate())}
            disabled={logout.isPending || logout.isSuccess}
            className="flex-1 sm:flex-none"
          >
            {logout.isPending ? <Spinner className="h-4 w-4" /> : <LogOut aria-hidden="true" className="h-4 w-4" />}
            Logout
          </Button>
        </div>
      </div>

      <BucketPrivacyNotice />
      <SignInActivity />
      <DashboardEmailNotice />

      <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-3">
        <DashboardCard
          id="edit-text"
          title="Edit Website Text"
          description="Change the words on each page of the website."
          icon={<FileText aria-hidden="true" className="h-5 w-5" />}
          bodyClassName="mt-4 grid grid-cols-2 gap-2"
        >
          {PAGE_GROUPS.map((group) => {
            const next: AdminView = { kind: "content", group };
            return (
              <button
                key={group}
                type="button"
                id={openerIdFor(next)!}
                className={choiceClasses}
                onClick={() => onOpen(next)}
              >
                {PAGE_GROUP_LABELS[group]}
              </button>
            );
          })}
        </DashboardCard>

        <DashboardCard
          id="galleries"
          title="Manage Photo Galleries"
          description="Upload, caption, reorder and delete photos."
          icon={<Images aria-hidden="true" className="h-5 w-5" />}
          bodyClassName="mt-4 grid grid-cols-2 gap-2"
        >
          {GALLERY_TYPES.map((galleryType) => {
            const next: AdminView = { kind: "gallery", galleryType };
            return (
              <button
                key={galleryType}
                type="button"
                id={openerIdFor(next)!}
                className={choiceClasses}
                onClick={() => onOpen(next)}
              >
                {GALLERY_TITLES[galleryType]}
              </button>
            );
          })}
        </DashboardCard>

        <DashboardCard
          id="submissions"
          title="Contact Form Submissions"
          description="Read the messages sent through the contact form."
          icon={<Inbox aria-hidden="true" className="h-5 w-5" />}
        >
          <UnreadCount />
          <button
            type="button"
            id={openerIdFor({ kind: "submissions" })!}
            className={buttonClasses("primary", "md", "w-full")}
            onClick={() => onOpen({ kind: "submissions" })}
          >
            View Submissions
          </button>
        </DashboardCard>

        {/* After the spec's three cards, each list the owner edits (app/content/lists.ts): one small card. */}
        {OWNER_LISTS.map((list) => {
          const next: AdminView = { kind: "list", list: list.key };
          return (
            <section
              key={list.key}
              aria-labelledby={`list-${list.key}-title`}
              className={cn(cardClasses, "flex items-center justify-between gap-3")}
            >
              <div>
                <h2 id={`list-${list.key}-title`} className="text-xl font-bold text-stone-900">
                  {list.title}
                </h2>
                {/* On a phone the title and its button say enough: the dashboard stays two screens. */}
                <p className="mt-1 hidden text-sm text-stone-700 sm:block">{list.description}</p>
              </div>
              <button
                type="button"
                id={openerIdFor(next)!}
                className={buttonClasses("outline", "md", "shrink-0")}
                onClick={() => onOpen(next)}
              >
                {list.manage}
              </button>
            </section>
          );
        })}
      </div>

      <SettingsList onOpen={onOpen} />
    </div>
  );
}
