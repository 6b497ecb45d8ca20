import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { AppServices } from '../../app-services';
import { badInput } from '../../errors';
import { pageArgs } from '../../pagination';
import { inCallerGroups } from '../../tenancy';
import { isUuid, oneOf } from '../../validation';
import { pluginByKey, pluginTarget } from '../plugins/registry';
import { findIntegration } from '../integrations/integrations.service';
import { sampleFeed } from '../syncs/syncs.service';
import { fieldsOf, TARGETS, type Target } from '../field-mapping/fields';
import { checkedColumnMapping, resolveColumns, type ColumnMapping } from '../field-mapping/mapping';
import { detectMapping, type Suggestion } from '../field-mapping/detect';

/** File column mappings: how each column of an integration's files maps to our fields, a preview of its latest file, and detection from headers. */

export interface FileColumnMapping {
  integration_id: string;
  integration_name: string;
  plugin_key: string;
  target: Target;
  mapping: ColumnMapping;
  fields: string[];
}

const asFileMapping = (integration: {
  id: string;
  name: string;
  pluginKey: string;
  columnMapping: unknown;
}): FileColumnMapping => {
  const target = pluginTarget(integration.pluginKey);
  return {
    integration_id: integration.id,
    integration_name: integration.name,
    plugin_key: integration.pluginKey,
    target,
    mapping: integration.columnMapping as ColumnMapping,
    fields: fieldsOf(target),
  };
};

export async function fileColumnMappings(
  caller: Caller,
  args: { integration_id?: string | null; limit?: number | null; offset?: number | null },
) {
  const { limit, offset } = pageArgs(args);
  if (args.integration_id && !isUuid(args.integration_id))
    throw badInput('integration_id', 'must be an integration id');
  const where: Prisma.IntegrationWhereInput = {
    dealerGroupId: inCallerGroups(caller.session),
    disconnectedAt: null,
    ...(args.integration_id ? { id: args.integration_id } : {}),
  };
  const [total, integrations] = await Promise.all([
    caller.db.integration.count({ where }),
    caller.db.integration.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      take: limit,
      skip: offset,
      select: { id: true, name: true, pluginKey: true, columnMapping: true },
    }),
  ]);
  return { items: integrations.map(asFileMapping), total, limit, offset };
}

export async function setFileColumnMapping(
  caller: Caller,
  integrationId: string,
  mapping: unknown,
): Promise<FileColumnMapping> {
  const integration = await findIntegration(caller, integrationId);
  const saved = await caller.db.integration.update({
    where: { id: integration.id },
    data: {
      columnMapping: checkedColumnMapping(
        pluginTarget(integration.pluginKey),
        'mapping',
        mapping,
      ) as Prisma.InputJsonValue,
    },
  });
  return asFileMapping(saved);
}

export interface PreviewColumn {
  column: string;
  mapped_to: string | null;
  mapped_by: 'integration' | 'template' | 'known_name' | 'unmapped';
  samples: unknown[];
}

/** The latest file's headers, where each goes under the current mapping, and sample values. */
export async function previewFileColumns(
  caller: Caller,
  app: Pick<AppServices, 'database' | 'secrets' | 'feeds'>,
  integrationId: string,
) {
  const integration = await findIntegration(caller, integrationId);
  const plugin = pluginByKey(integration.pluginKey)!;
  const sampled = await sampleFeed(app, integration);
  if (!sampled)
    return {
      integration_id: integration.id,
      file_name: null,
      columns: [] as PreviewColumn[],
      suggestions: [] as Suggestion[],
    };
  const {
    rows,
    pipeline: { layers },
  } = sampled;
  const headers = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const own = layers.columns;
  const fromTemplate = layers.template;
  const resolved = resolveColumns(plugin.target, headers, layers);
  const columns: PreviewColumn[] = headers.map((column) => {
    const mappedTo = resolved.get(column) ?? null;
    const known = fieldsOf(plugin.target).includes(mappedTo ?? '');
    return {
      column,
      mapped_to: known ? mappedTo : null,
      mapped_by:
        column in own ? 'integration' : column in fromTemplate ? 'template' : known ? 'known_name' : 'unmapped',
      samples: rows.map((row) => row[column] ?? null),
    };
  });
  return {
    integration_id: integration.id,
    file_name: sampled.fileName,
    columns,
    suggestions: detectMapping(plugin.target, headers, rows),
  };
}

export function detect(input: { headers?: string[] | null; rows?: unknown; target?: string | null }) {
  const target = oneOf('target', input.target ?? 'vehicles', TARGETS);
  const headers = input.headers ?? [];
  if (
    !headers.length ||
    headers.length > 500 ||
    headers.some((header) => typeof header !== 'string' || !header.trim() || header.length > 200)
  ) {
    throw badInput('headers', 'give the header row: 1-500 column names of at most 200 characters');
  }
  const given = input.rows ?? [];
  if (!Array.isArray(given) || given.length > 100) throw badInput('rows', 'must be a list of at most 100 sample rows');
  const rows = given.map((row, index) => {
    if (Array.isArray(row)) return Object.fromEntries(headers.map((header, column) => [header, row[column] ?? null]));
    if (row && typeof row === 'object') return row as Record<string, unknown>;
    throw badInput(`rows[${index}]`, 'must be a list of values in header order, or an object keyed by header');
  });
  const suggestions = detectMapping(target, headers, rows);
  const mapping = Object.fromEntries(
    suggestions.filter((suggestion) => suggestion.field).map((suggestion) => [suggestion.column, suggestion.field]),
  );
  return {
    target,
    suggestions,
    mapping,
    unmapped_fields: fieldsOf(target).filter((field) => !Object.values(mapping).includes(field)),
  };
}
