import { useSignedIn } from '../api/session';
import NotFound from './NotFound';
import Shell from './Shell';

/** Not Found needs no sign-in; a signed-in user still sees it inside the shell. */
export default function NotFoundRoute() {
  const signedIn = useSignedIn();
  return signedIn ? (
    <Shell>
      <NotFound />
    </Shell>
  ) : (
    <NotFound />
  );
}
