import crypto from 'node:crypto';
import type { Db } from '../../db/index.js';
import * as repo from './repo.js';

/**
 * The users and organisations API that other areas call (the account area owns both tables). Built on an
 * executor, so the same calls serve inside a transaction that another area's writes share.
 */
export function makeUsers(q: Db) {
  return {
    byEmail: (email: string) => repo.userByEmail(q, email),
    /** By id alone: for flows that start from a token or a link, before the organisation is known. */
    byId: (id: string) => repo.userById(q, id),
    inOrganisation: (orgId: string, id: string) => repo.userInOrganisation(q, orgId, id),
    /** The organisation's members, oldest first, with the columns a member list shows. */
    list: (orgId: string) => repo.members(q, orgId),
    member: (orgId: string, id: string) => repo.member(q, orgId, id),
    withOrganisation: (orgId: string, userId: string) => repo.userWithOrganisation(q, orgId, userId),
    /** Names, languages and organisations of the given users, across organisations: for the platform administrators' review only. */
    peopleAcrossOrganisations: (ids: string[]) => repo.peopleAcrossOrganisations(q, ids),
    /** The oldest active account of the installation, across organisations (the first-account platform administrator). */
    firstAccount: () => repo.firstAccount(q),
    activeOwners: (orgId: string) => repo.activeOwners(q, orgId),
    create: (row: repo.NewUser) => repo.insertUser(q, row),
    update: (id: string, patch: repo.UserPatch, orgId?: string) => repo.updateUser(q, id, patch, orgId),
    /** Removes a person invited to `orgId` who never joined, and the links they were sent. */
    deleteInvited: (orgId: string, id: string) => repo.deleteInvited(q, orgId, id),
    async createOrganisation(name: string, at = new Date().toISOString()) {
      const id = crypto.randomUUID();
      await repo.insertOrganisation(q, { id, name, created_at: at });
      return id;
    },
    renameOrganisation: (orgId: string, name: string) => repo.renameOrganisation(q, orgId, name),
    organisationName: (orgId: string) => repo.organisationName(q, orgId),
    /** Names by id of the given organisations (one query); an unknown id is absent. */
    organisationNames: (ids: string[]) => repo.organisationNames(q, ids),
  };
}

export type Users = ReturnType<typeof makeUsers>;
