import crypto from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { AccountService } from '../account/service.js';
import type { Role } from '../../db/schema.js';
import type { ProfileService } from '../profile/service.js';
import { makePhotoService } from './photo.js';
import { M as AccountM } from '../account/messages.js';
import { M } from './messages.js';

const manages = (role: string) => role === 'owner' || role === 'admin';

/**
 * The organisation's members (SPEC §7 Account client): list, details, invitations, role and status. The people
 * themselves are users of the account area, reached through its service.
 */
export function makeMembersService(ctx: Pick<AppContext, 'storage'>, account: AccountService, profile: ProfileService) {
  const photos = makePhotoService(ctx);
  const { users } = account;
  const withPhoto = <T extends { id: string }>(orgId: string, m: T) => ({ ...m, photo: photos.urlOf(orgId, m.id) });

  return {
    photos,

    async list(orgId: string) {
      const items = await users.list(orgId);
      return { items: items.map((m) => withPhoto(orgId, m)), total: items.length };
    },

    /** Personal details are for the person and those who manage members. */
    async details(auth: AuthContext, id: string) {
      const item = await users.member(auth.orgId, id);
      if (!item) throw new AppError(404, 'not_found');
      if (item.id !== auth.userId && !manages(auth.role)) return withPhoto(auth.orgId, item);
      const p = await profile.memberDetails(auth.orgId, item.id);
      return {
        ...item,
        middle_name: p?.middle_name ?? null,
        birth_date: p?.birth_date ?? null,
        gender: p?.gender ?? null,
        phone: p?.phone ?? null,
        photo: photos.urlOf(auth.orgId, item.id),
        ip_address: p?.ip_address ?? null,
        country_code: p?.country_code ?? null,
        state_or_province: p?.state_or_province ?? null,
        city: p?.city ?? null,
        postal_code: p?.postal_code ?? null,
        address: p?.address ?? null,
      };
    },

    /** Invites a person; inviting again someone invited here and not yet joined sends a fresh link. Answers whether a user was created. */
    async invite(auth: AuthContext, body: { email: string; role: Role; first_name: string; last_name: string }, lang: Lang) {
      const email = body.email.trim().toLowerCase();
      const names = { first_name: body.first_name.trim(), last_name: body.last_name.trim() };
      if (body.role === 'owner' && auth.role !== 'owner') throw new AppError(403, M.onlyOwnerGrantsOwner);
      const existing = await users.byEmail(email);
      const inviter = await users.byId(auth.userId);
      if (!inviter) throw new Error(`inviter ${auth.userId} is missing`);
      const inviterName = `${inviter.first_name} ${inviter.last_name}`.trim();
      if (existing) {
        // Anyone but a person invited here and not yet joined is refused.
        if (existing.organisation_id !== auth.orgId || existing.status !== 'invited') throw new AppError(409, M.alreadyMember);
        await users.update(existing.id, { role: body.role, ...names });
        await account.sendInvitation({ ...existing, ...names }, inviterName, lang);
        return { id: existing.id, email, created: false };
      }
      const user = {
        id: crypto.randomUUID(),
        organisation_id: auth.orgId,
        email,
        password_hash: null,
        ...names,
        role: body.role,
        status: 'invited',
        email_verified_at: null,
        language: 'en-gb',
        department: null,
        office_location: null,
        created_at: new Date().toISOString(),
      };
      await users.create(user);
      await account.sendInvitation(user, inviterName, lang);
      return { id: user.id, email, created: true };
    },

    /** Cancelling an invitation removes the invited person (they have no data yet); the link they were sent stops working. */
    /** The photo file of a member of the caller's organisation, or null. */
    async photoFile(orgId: string, id: string) {
      const member = await users.member(orgId, id);
      return member ? photos.file(orgId, member.id) : null;
    },

    async cancelInvitation(auth: AuthContext, id: string) {
      const target = await users.inOrganisation(auth.orgId, id);
      if (!target) throw new AppError(404, 'not_found');
      if (target.status !== 'invited') throw new AppError(409, M.notAnInvitation);
      if (target.role === 'owner' && auth.role !== 'owner') throw new AppError(403, M.onlyOwnerGrantsOwner);
      await account.transaction((_trx, tx) => tx.deleteInvited(auth.orgId, target.id));
      return { id: target.id, email: target.email };
    },

    /** Changes one field of another member: role or status; the organisation keeps an active owner. */
    async update(auth: AuthContext, id: string, change: { role?: Role; status?: 'active' | 'disabled' }) {
      const target = await users.inOrganisation(auth.orgId, id);
      if (!target) throw new AppError(404, 'not_found');
      if (target.id === auth.userId) throw new AppError(403, M.notYourself);
      if ((target.role === 'owner' || change.role === 'owner') && auth.role !== 'owner') throw new AppError(403, M.onlyOwnerGrantsOwner);
      if (change.role) {
        await users.update(target.id, { role: change.role });
      } else if (change.status) {
        if (target.status === 'invited' && change.status === 'active') throw new AppError(422, AccountM.accountNotActivated, {}, 'status');
        if (target.role === 'owner' && change.status === 'disabled') {
          const owners = await users.activeOwners(auth.orgId);
          if (owners.filter((o) => o.id !== target.id).length === 0) throw new AppError(422, M.lastOwner, {}, 'status');
        }
        await users.update(target.id, { status: change.status });
        // Disabling ends the member's sessions now (re-enabling does not revive tokens issued before); the guard refuses their access tokens at once.
        if (change.status === 'disabled') await account.endSessions(target.id);
      }
      const item = await users.member(auth.orgId, target.id);
      if (!item) throw new AppError(404, 'not_found');
      return item;
    },
  };
}

export type MembersService = ReturnType<typeof makeMembersService>;
