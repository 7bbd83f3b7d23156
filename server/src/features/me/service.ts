import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { AccountService } from '../account/service.js';
import { makePhotoService } from '../members/photo.js';

/** GET users/me: the signed-in person, their organisation and the menu links they may see. */
export function makeMeService(ctx: Pick<AppContext, 'config' | 'storage'>, account: AccountService) {
  const { config } = ctx;
  const photos = makePhotoService(ctx);
  return {
    async me(auth: { userId: string; orgId: string }) {
      const user = await account.users.withOrganisation(auth.orgId, auth.userId);
      if (!user) throw new AppError(401, 'token_invalid');
      const showTestSite = !!config.testSiteUrl && config.testSiteAllowlist.includes(user.email.toLowerCase());
      return {
        id: user.id,
        email: user.email,
        first_name: user.first_name,
        last_name: user.last_name,
        name: `${user.first_name} ${user.last_name}`.trim(),
        role: user.role,
        status: user.status,
        language: user.language,
        department: user.department,
        office_location: user.office_location,
        organisation: { id: user.organisation_id, name: user.organisation_name },
        photo: photos.urlOf(user.organisation_id, user.id),
        links: { visualizer_url: config.visualizerUrl ?? null, test_site_url: showTestSite ? config.testSiteUrl : null, show_test_site: showTestSite },
      };
    },
  };
}

