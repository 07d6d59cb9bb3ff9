/** What GET /api/admin/security/summary answers (shared by the server and the dashboard). */
export type SignInReport = {
  /** Failed sign-ins between the previous good sign-in and the one that started this session. */
  failedAttempts: number;
  /** From how many client addresses (an IPv6 client counted per /56). */
  addresses: number;
  /** More addresses failed than are kept: `addresses` is then a lower bound. */
  moreAddresses: boolean;
  firstFailedAt: string | null;
  lastFailedAt: string | null;
};

export type SecuritySummary = {
  failedSignInsBeforeThisSession: SignInReport;
  /** The password is still the one the first start generated. */
  temporaryPassword: boolean;
};
