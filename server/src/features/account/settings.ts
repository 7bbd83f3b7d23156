import { platformAdmins } from '../../auth/platform-admins.js';

/** The account area's settings (environment, each with a default). */
export interface AccountSettings {
  /** Hours an e-mail verification link stays valid. */
  verifyLinkTtlH: number;
  /** Minutes a password-reset link stays valid. */
  resetLinkTtlMin: number;
  /** Days an invitation link stays valid. */
  inviteLinkTtlDays: number;
  /** Failed sign-ins per e-mail within the window before it is throttled. */
  loginLimitPerEmail: number;
  /** Failed sign-ins per IP address within the window before it is throttled. */
  loginLimitPerIp: number;
  loginWindowMin: number;
  /** Forgot-password and resend-verification calls per IP address within the window. */
  mailLimitPerIp: number;
  /** E-mail addresses allowed to review identity documents. */
  platformAdmins: string[];
  /** Largest ID image accepted. */
  idMaxMb: number;
}

const int = (v: string | undefined, d: number) => {
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : d;
};

export function accountSettings(env: NodeJS.ProcessEnv): AccountSettings {
  return {
    verifyLinkTtlH: int(env.MITATE_VERIFY_LINK_TTL_H, 24),
    resetLinkTtlMin: int(env.MITATE_RESET_LINK_TTL_MIN, 60),
    inviteLinkTtlDays: int(env.MITATE_INVITE_LINK_TTL_DAYS, 7),
    loginLimitPerEmail: int(env.MITATE_LOGIN_MAX_FAILURES, 5),
    loginLimitPerIp: int(env.MITATE_LOGIN_MAX_FAILURES_IP, 10),
    mailLimitPerIp: int(env.MITATE_MAIL_MAX_REQUESTS_IP, 5),
    loginWindowMin: int(env.MITATE_LOGIN_WINDOW_MIN, 15),
    platformAdmins: platformAdmins(env),
    idMaxMb: int(env.MITATE_ID_MAX_MB, 10),
  };
}
