import type { AreaProps } from '../../app/area';
import AdminIdentityPage from './AdminIdentityPage';
import CompleteRegistrationPage from './CompleteRegistrationPage';
import { AcceptInvitationPage, ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './GuestPages';
import LoginPage from './LoginPage';
import RegisterPage from './RegisterPage';

/** Sign-in and onboarding screens (SPEC §2 'Other': registration, forgot/reset password, e-mail verification, complete registration). */
export default function AccountArea({ page }: AreaProps) {
  switch (page) {
    case 'register':
      return <RegisterPage />;
    case 'forgot-password':
      return <ForgotPasswordPage />;
    case 'reset-password':
      return <ResetPasswordPage />;
    case 'verify-email':
      return <VerifyEmailPage />;
    case 'accept-invitation':
      return <AcceptInvitationPage />;
    case 'complete-registration':
      return <CompleteRegistrationPage />;
    case 'admin-identity':
      return <AdminIdentityPage />;
    default:
      return <LoginPage />;
  }
}
