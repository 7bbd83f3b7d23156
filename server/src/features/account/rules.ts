/** The roles and statuses of a users row (the account area owns the table). */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const MEMBER_STATUSES = ['active', 'disabled'] as const;
