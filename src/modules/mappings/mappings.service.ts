import type { Prisma } from '../../generated/prisma/client';
import type { Context } from '../../context';
import { badInput, forbidden, notFound } from '../../errors';
import { pageArgs } from '../../pagination';
import { inCallerGroups, targetGroup } from '../../tenancy';
import { isUuid, oneOf, optionalText, requiredText } from '../../validation';
import { recordAudit } from '../../audit';
import { pluginByKey } from '../plugins/registry';
import { findIntegration } from '../integrations/integration-lookup';
import { fieldsOf, TARGETS, type Target } from '../syncs/fields';
import { columnMappingProblem, resolveColumns, valueMappingsProblem, type ColumnMapping } from '../syncs/mapping';
import { detectMapping, type Suggestion } from '../syncs/detect';
import { deliveredName } from '../syncs/sync-runner';

/** File column mappings per integration and mapping templates with their community bank (their two sections of docs/operations.md). */

type Caller = Pick<Context, 'db' | 'session' | 'meta' | 'services'>;

const targetOfPlugin = (pluginKey: string) => pluginByKey(pluginKey)?.target ?? 'vehicles';

function checkedMapping(target: Target, field: string, mapping: unknown): ColumnMapping {
  const problem = columnMappingProblem(target, mapping);
  if (problem) throw badInput(problem.field.replace(/^mapping/, field), problem.message);
  return mapping as ColumnMapping;
}

export interface FileColumnMapping { integration_id: string; integration_name: string; plugin_key: string; target: Target; mapping: ColumnMapping; fields: string[] }

const asFileMapping = (integration: { id: string; name: string; pluginKey: string; columnMapping: unknown }): FileColumnMapping => {
  const target = targetOfPlugin(integration.pluginKey);
  return { integration_id: integration.id, integration_name: integration.name, plugin_key: integration.pluginKey, target, mapping: integration.columnMapping as ColumnMapping, fields: fieldsOf(target) };
};

export async function fileColumnMappings(caller: Caller, args: { integration_id?: string | null; limit?: number | null; offset?: number | null }) {
  const { limit, offset } = pageArgs(args);
  if (args.integration_id && !isUuid(args.integration_id)) throw badInput('integration_id', 'must be an integration id');
  const where: Prisma.IntegrationWhereInput = { dealerGroupId: inCallerGroups(caller.session), disconnectedAt: null, ...(args.integration_id ? { id: args.integration_id } : {}) };
  const [total, integrations] = await Promise.all([
    caller.db.integration.count({ where }),
    caller.db.integration.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset, select: { id: true, name: true, pluginKey: true, columnMapping: true } }),
  ]);
  return { mappings: integrations.map(asFileMapping), total, limit, offset };
}

export async function setFileColumnMapping(caller: Caller, integrationId: string, mapping: unknown): Promise<FileColumnMapping> {
  const integration = await findIntegration(caller, integrationId);
  const saved = await caller.db.integration.update({
    where: { id: integration.id },
    data: { columnMapping: checkedMapping(targetOfPlugin(integration.pluginKey), 'mapping', mapping) as Prisma.InputJsonValue },
  });
  return asFileMapping(saved);
}

export interface PreviewColumn { column: string; mapped_to: string | null; mapped_by: 'integration' | 'template' | 'known_name' | 'unmapped'; samples: unknown[] }

/** The latest file's headers, where each goes under the current mapping, and sample values. */
export async function previewFileColumns(caller: Caller, integrationId: string) {
  const integration = await findIntegration(caller, integrationId);
  const plugin = pluginByKey(integration.pluginKey)!;
  const syncs = caller.services.syncs;
  const file = plugin.delivery === 'sftp' ? ((await syncs.pendingFiles(integration)).at(-1) ?? (await syncs.latestProcessed(integration.id))) : null;
  if (plugin.delivery === 'sftp' && !file) return { integration_id: integration.id, file_name: null, columns: [] as PreviewColumn[], suggestions: [] as Suggestion[] };
  const rows: Array<Record<string, unknown>> = [];
  for await (const row of syncs.rowsOf(integration, plugin, file, undefined, true)) {
    rows.push(row.values);
    if (rows.length >= 5) break;
  }
  const headers = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const { layers } = await syncs.mappingLayers(integration);
  const own = layers.columns;
  const fromTemplate = layers.template;
  const resolved = resolveColumns(plugin.target, headers, layers);
  const columns: PreviewColumn[] = headers.map((column) => {
    const mappedTo = resolved.get(column) ?? null;
    const known = fieldsOf(plugin.target).includes(mappedTo ?? '');
    return {
      column,
      mapped_to: known ? mappedTo : null,
      mapped_by: column in own ? 'integration' : column in fromTemplate ? 'template' : known ? 'known_name' : 'unmapped',
      samples: rows.map((row) => row[column] ?? null),
    };
  });
  return { integration_id: integration.id, file_name: file ? deliveredName(file) : null, columns, suggestions: detectMapping(plugin.target, headers, rows) };
}

export function detect(input: { headers?: string[] | null; rows?: unknown; target?: string | null }) {
  const target = oneOf('target', input.target ?? 'vehicles', TARGETS);
  const headers = input.headers ?? [];
  if (!headers.length || headers.length > 500 || headers.some((header) => typeof header !== 'string' || !header.trim() || header.length > 200)) {
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
  const mapping = Object.fromEntries(suggestions.filter((suggestion) => suggestion.field).map((suggestion) => [suggestion.column, suggestion.field]));
  return { target, suggestions, mapping, unmapped_fields: fieldsOf(target).filter((field) => !Object.values(mapping).includes(field)) };
}

// ─── Mapping templates ───────────────────────────────────────────────────────────────────────

export interface TemplateInput { name?: string | null; description?: string | null; plugin_key?: string | null; target?: string | null; field_mappings?: unknown; value_mappings?: unknown; dealer_group_id?: string | null }

/** Templates a caller may read and use: its groups' own and the community's published ones. */
export const visibleTo = (caller: Pick<Context, 'session'>): Prisma.MappingTemplateWhereInput => ({ OR: [{ dealerGroupId: inCallerGroups(caller.session) }, { published: true }] });

/** A template the caller may read (its own or a published one), else 404. */
export async function findTemplate(caller: Pick<Context, 'db' | 'session'>, id: string) {
  const template = isUuid(id) ? await caller.db.mappingTemplate.findFirst({ where: { id, ...visibleTo(caller) } }) : null;
  if (!template) throw notFound(`mapping template ${id}`);
  return template;
}

async function ownTemplate(caller: Pick<Context, 'db' | 'session'>, id: string) {
  const template = await findTemplate(caller, id);
  if (!caller.session.dealerGroupIds.includes(template.dealerGroupId)) throw forbidden('only its owner can change a community template: clone it to make your own');
  return template;
}

function templateBody(input: TemplateInput, target: Target) {
  const fieldMappings = input.field_mappings === undefined || input.field_mappings === null ? undefined : checkedMapping(target, 'field_mappings', input.field_mappings);
  let valueMappings: Prisma.InputJsonValue | undefined;
  if (input.value_mappings !== undefined && input.value_mappings !== null) {
    const problem = valueMappingsProblem(target, input.value_mappings);
    if (problem) throw badInput(problem.field, problem.message);
    valueMappings = input.value_mappings as Prisma.InputJsonValue;
  }
  return { fieldMappings: fieldMappings as Prisma.InputJsonValue | undefined, valueMappings };
}

export async function templatePage(caller: Caller, args: { community?: boolean; q?: string | null; target?: string | null; limit?: number | null; offset?: number | null }) {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.MappingTemplateWhereInput = {
    ...(args.community ? { published: true } : { dealerGroupId: inCallerGroups(caller.session) }),
    ...(args.q ? { name: { contains: args.q, mode: 'insensitive' } } : {}),
    ...(args.target ? { target: oneOf('target', args.target, TARGETS) } : {}),
  };
  return { where, limit, offset, total: await caller.db.mappingTemplate.count({ where }) };
}

export async function createTemplate(caller: Caller, input: TemplateInput): Promise<string> {
  const dealerGroupId = targetGroup(caller.session, input.dealer_group_id);
  if (input.plugin_key && !pluginByKey(input.plugin_key)) throw badInput('plugin_key', `unknown plugin "${input.plugin_key}"`);
  const target = input.target ? oneOf('target', input.target, TARGETS) : input.plugin_key ? targetOfPlugin(input.plugin_key) : 'vehicles';
  const body = templateBody(input, target);
  return caller.db.$transaction(async (tx) => {
    const template = await tx.mappingTemplate.create({
      data: {
        dealerGroupId, name: requiredText('name', input.name, 100), description: optionalText('description', input.description, 1000) ?? null,
        pluginKey: input.plugin_key ?? null, target, fieldMappings: body.fieldMappings ?? {}, valueMappings: body.valueMappings ?? {},
      },
    });
    await tx.mappingTemplateVersion.create({ data: { templateId: template.id, version: 1, fieldMappings: template.fieldMappings as Prisma.InputJsonValue, valueMappings: template.valueMappings as Prisma.InputJsonValue } });
    return template.id;
  });
}

/** Changes a template; a change to its mappings makes a new version (runs record the version they used). */
export async function updateTemplate(caller: Caller, id: string, input: TemplateInput): Promise<string> {
  const template = await ownTemplate(caller, id);
  const body = templateBody(input, template.target as Target);
  const remapped = body.fieldMappings !== undefined || body.valueMappings !== undefined;
  await caller.db.$transaction(async (tx) => {
    const updated = await tx.mappingTemplate.update({
      where: { id },
      data: {
        ...(input.name != null ? { name: requiredText('name', input.name, 100) } : {}),
        ...(input.description !== undefined ? { description: optionalText('description', input.description, 1000) ?? null } : {}),
        ...(body.fieldMappings !== undefined ? { fieldMappings: body.fieldMappings } : {}),
        ...(body.valueMappings !== undefined ? { valueMappings: body.valueMappings } : {}),
        ...(remapped ? { version: { increment: 1 } } : {}),
      },
    });
    if (remapped) {
      await tx.mappingTemplateVersion.create({ data: { templateId: id, version: updated.version, fieldMappings: updated.fieldMappings as Prisma.InputJsonValue, valueMappings: updated.valueMappings as Prisma.InputJsonValue } });
    }
  });
  return id;
}

export async function deleteTemplate(caller: Caller, id: string): Promise<string> {
  await ownTemplate(caller, id);
  await caller.db.mappingTemplate.delete({ where: { id } });
  return id;
}

export async function cloneTemplate(caller: Caller, id: string, input: { name?: string | null; dealer_group_id?: string | null }): Promise<string> {
  const source = await findTemplate(caller, id);
  return createTemplate(caller, {
    name: input.name ?? `${source.name} (copy)`, description: source.description, plugin_key: source.pluginKey, target: source.target,
    field_mappings: source.fieldMappings, value_mappings: source.valueMappings, dealer_group_id: input.dealer_group_id,
  }).then(async (cloneId) => {
    await caller.db.mappingTemplate.update({ where: { id: cloneId }, data: { clonedFromId: source.id } });
    return cloneId;
  });
}

export async function publishTemplate(caller: Caller, id: string, published: boolean): Promise<string> {
  const template = await ownTemplate(caller, id);
  await caller.db.mappingTemplate.update({ where: { id }, data: { published, publishedAt: published ? new Date() : null } });
  if (published) await recordAudit(caller.db, caller, { action: 'mapping_template.published', targetType: 'mapping_template', targetId: id, dealerGroupIds: [template.dealerGroupId] });
  return id;
}
