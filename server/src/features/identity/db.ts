import '../account/db.js';

export type IdentityState = 'under_review' | 'done' | 'rejected';

export interface IdentityVerificationTable {
  id: string;
  organisation_id: string;
  user_id: string;
  state: IdentityState;
  front_key: string;
  back_key: string;
  reason: string | null;
  submitted_at: string;
  reviewed_at: string | null;
  reviewed_by: string | null;
}

// Made by the account area's migration 0600_account.
declare module '../../db/schema.js' {
  interface Database {
    identity_verifications: IdentityVerificationTable;
  }
}
