import type { ComponentType } from 'react';
import type { AreaProps } from '../../app/area';
import AdminIdentityPage from './AdminIdentityPage';
import CompleteRegistrationPage from './CompleteRegistrationPage';
import { AcceptInvitationPage, ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './GuestPages';
import LoginPage from './LoginPage';
import RegisterPage from './RegisterPage';

/** The screen of each page; any other page is the sign-in form. */
const PAGES = new Map<string, ComponentType>([
  ['register', RegisterPage],
  ['forgot-password', ForgotPasswordPage],
  ['reset-password', ResetPasswordPage],
  ['verify-email', VerifyEmailPage],
  ['accept-invitation', AcceptInvitationPage],
  ['complete-registration', CompleteRegistrationPage],
  ['admin-identity', AdminIdentityPage],
]);

/** Sign-in and onboarding screens (SPEC §2 'Other': registration, forgot/reset password, e-mail verification, complete registration). */
export default function AccountArea({ page }: AreaProps) {
  const Page = PAGES.get(page) ?? LoginPage;
  return <Page />;
}
