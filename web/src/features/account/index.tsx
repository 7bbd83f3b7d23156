import type { AreaProps } from '../../app/area';
import LoginPage from './LoginPage';
import RegisterPage from './RegisterPage';

/** Sign-in screens: 'login' and 'register'. */
export default function AccountArea({ page }: AreaProps) {
  return page === 'register' ? <RegisterPage /> : <LoginPage />;
}
