import type { Db } from './db/database';
import type { Session } from './auth/session';

/** What most services need of a request: the database and the caller's session (whose groups filter every query). */
export interface Caller {
  db: Db;
  session: Session;
}
