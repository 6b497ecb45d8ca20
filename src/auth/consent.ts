/**
 * What a key bound to a partner may see: the rooftops linked to the partner
 * (`POST /partners/:id/dealers`) and, for each, the kinds of data its link allows. Every read and
 * write of dealer data, the change feed, webhooks and subscriptions narrow a partner's key to it.
 */

/** The kinds of data a partner's link to a rooftop can allow (its `data_permissions`). */
export const DATA_KINDS = ['inventory', 'calls', 'leads', 'sales', 'dealers'] as const;
export type DataKind = (typeof DATA_KINDS)[number];

/**
 * The scopes a partner's key may hold: reading (and, for what partners send, writing) the data
 * its links allow, and its own webhooks. Nothing that manages the group (feeds, sources,
 * mappings, partners, keys, logs, the assistant).
 */
export const PARTNER_SCOPES = [
  'inventory:read',
  'inventory:write',
  'dealers:read',
  'calls:read',
  'calls:write',
  'leads:read',
  'leads:write',
  'sales:read',
  'webhooks:read',
  'webhooks:write',
] as const;

export interface PartnerLink {
  dealer_id: string;
  permissions: readonly string[];
}

export class Consent {
  private readonly byKind = new Map<DataKind, string[]>();

  constructor(
    readonly partnerId: string,
    readonly links: readonly PartnerLink[],
  ) {
    for (const kind of DATA_KINDS)
      this.byKind.set(
        kind,
        links.filter((link) => link.permissions.includes(kind)).map((link) => link.dealer_id),
      );
  }

  /** The rooftops whose `kind` data the partner may receive. */
  dealers(kind: DataKind): readonly string[] {
    return this.byKind.get(kind) ?? [];
  }

  /** The rooftops linked to the partner, whatever their links allow. */
  linkedDealers(): readonly string[] {
    return [...new Set(DATA_KINDS.flatMap((kind) => this.dealers(kind)))];
  }

  allows(kind: DataKind, dealerId: string | null | undefined): boolean {
    return !!dealerId && this.dealers(kind).includes(dealerId);
  }
}

/** The kind of data a scope (`leads:read`, `calls:write`) is about, when it is one a link can allow. */
export function kindOfScope(scope: string): DataKind | null {
  const kind = scope.split(':')[0];
  return (DATA_KINDS as readonly string[]).includes(kind ?? '') ? (kind as DataKind) : null;
}
