import type { Principal } from "../auth/principal.js";

declare global {
  namespace Express {
    interface Request {
      /** The caller once their API key (or session) has been checked; null when none was sent. */
      principal?: Principal | null;
      /** A credential was sent but is unknown or revoked: answered 401 after rate limiting. */
      credentialRejected?: boolean;
    }
  }
}
