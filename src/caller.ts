import type { Db } from './db/database';
import type { Session } from './auth/session';

/**
 * What most services need of a request: the database, the caller's session (whose groups filter
 * every query), and the request's id and address for the audit trail.
 */
export interface Caller {
  requestId: string;
  /** The caller's address (behind TRUST_PROXY_HOPS proxies), for the audit trail and sign-in throttling. */
  ip: string | null;
  db: Db;
  session: Session;
}
