import '../account/db.js';

/** A sign-in through the directory in progress (state, PKCE verifier), then its one-time hand-over code. */
export interface OidcLoginTable {
  id: string;
  state: string;
  code_verifier: string;
  nonce: string;
  return_to: string | null;
  handover_hash: string | null;
  user_id: string | null;
  id_token: string | null;
  created_at: string;
  used_at: string | null;
}

/** Which organisation a directory (single tenant: the issuer; common: the tenant id or e-mail domain) maps to. */
export interface OidcDirectoryTable {
  key: string;
  organisation_id: string;
  created_at: string;
}

// Made by the account area's migration 0600_account.
declare module '../../db/schema.js' {
  interface Database {
    oidc_logins: OidcLoginTable;
    oidc_directories: OidcDirectoryTable;
  }
}
