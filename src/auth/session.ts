import { AppError, forbidden, unauthenticated } from '../errors';

export const passwordChangeRequired = () =>
  new AppError(
    403,
    'PASSWORD_CHANGE_REQUIRED',
    'change the initial password first: POST /auth/password with current_password and new_password',
  );
import type { Role, Scope } from './scopes';
import type { Consent } from './consent';

export type Principal =
  | { kind: 'anonymous' }
  | {
      kind: 'user';
      userId: string;
      email: string;
      role: Role;
      /** An initial password awaits its change: nothing else is allowed until then. */ mustChangePassword?: boolean;
    }
  | {
      kind: 'apiKey';
      apiKeyId: string;
      name: string;
      rateLimitPerHour: number;
      /** No use recorded yet: this one is written at once. */ neverUsed?: boolean;
    };

/**
 * Who is calling and what they may do. Never null: an unauthenticated caller holds the
 * anonymous session, which has no scopes and no dealer groups.
 */
export class Session {
  static anonymous(): Session {
    return new Session({ kind: 'anonymous' }, [], []);
  }

  constructor(
    readonly principal: Principal,
    readonly scopes: readonly Scope[],
    /** The dealer groups whose data this caller may see: the tenant filter of every query. */
    readonly dealerGroupIds: readonly string[],
    /** For a key bound to a partner: the rooftops, and the data of each, the partner may receive. */
    readonly consent: Consent | null = null,
  ) {}

  get isAuthenticated(): boolean {
    return this.principal.kind !== 'anonymous';
  }

  get userId(): string | null {
    return this.principal.kind === 'user' ? this.principal.userId : null;
  }

  get apiKeyId(): string | null {
    return this.principal.kind === 'apiKey' ? this.principal.apiKeyId : null;
  }

  /** A signed-in admin user. API keys never qualify, whatever their scopes. */
  get isAdminUser(): boolean {
    return this.principal.kind === 'user' && this.principal.role === 'admin';
  }

  has(scope: Scope): boolean {
    return this.scopes.includes(scope);
  }

  get mustChangePassword(): boolean {
    return this.principal.kind === 'user' && this.principal.mustChangePassword === true;
  }

  /** Throws 401 for the anonymous caller and 403 naming the scope for a caller without it. */
  assert(scope: Scope): void {
    if (!this.isAuthenticated) throw unauthenticated();
    if (this.mustChangePassword) throw passwordChangeRequired();
    if (!this.has(scope)) throw forbidden(`missing scope ${scope}`, { requiredScope: scope });
  }

  assertAuthenticated(): void {
    if (!this.isAuthenticated) throw unauthenticated();
  }
}
