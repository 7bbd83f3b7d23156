import type { FastifyInstance } from 'fastify';
import { requireAuth } from './auth/guard.js';
import accountRoutes, { passwordRoutes } from './features/account/routes.js';
// Members first: the OpenAPI document lists the answers' components in the order their modules declare them.
import memberRoutes from './features/members/routes.js';
import identityReviewRoutes from './features/identity-review/routes.js';
import identityRoutes from './features/identity/routes.js';
import oidcRoutes from './features/oidc/routes.js';
import { oidcEnabled } from './features/oidc/service.js';
import profileRoutes from './features/profile/routes.js';

/**
 * The account client (SPEC §7 'Account client', ARCHITECTURE 'Sign-in calls'), mounted under /account/api: the
 * sign-in calls and single sign-on, then, for a signed-in caller, password, members, profile, identity and its
 * review. The areas' services come built from start-up (services.ts).
 */
export default async function accountApi(app: FastifyInstance) {
  const { ctx } = app;
  const { account, members, profile, identity, oidc, identityReview: review } = app.services;

  await app.register(accountRoutes, { account, sso: oidcEnabled(ctx.config) });
  await app.register(oidcRoutes, { oidc });

  // Everything below needs a signed-in caller.
  await app.register(async (signedIn) => {
    signedIn.addHook('onRequest', requireAuth);
    await signedIn.register(passwordRoutes, { account });
    await signedIn.register(memberRoutes, { members, profile });
    await signedIn.register(profileRoutes, { profile });
    await signedIn.register(identityRoutes, { identity });
    await signedIn.register(identityReviewRoutes, { review });
  });
}
