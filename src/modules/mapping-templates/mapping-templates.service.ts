import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { Db } from '../../db/database';
import { badInput, forbidden, notFound } from '../../errors';
import { pageArgs, pageRef } from '../../pagination';
import { inCallerGroups, targetGroup } from '../../tenancy';
import { isUuid, oneOf, optionalText, requiredText } from '../../validation';
import { recordAudit } from '../../audit';
import { pluginByKey, pluginTarget } from '../plugins/registry';
import { TARGETS, type Target } from '../field-mapping/fields';
import { likeLiteral } from '../../sql-filters';
import {
  checkedColumnMapping,
  valueMappingsProblem,
  type ColumnMapping,
  type ValueMappings,
} from '../field-mapping/mapping';

/** Mapping templates: reusable field and value mappings for feeds, versioned, with the community bank they can be published to. */

/** A template's mappings and version, as a sync run applies them; null when the template is gone. */
export async function templateMappings(
  db: Db,
  templateId: string,
): Promise<{ fieldMappings: ColumnMapping; valueMappings: ValueMappings; version: number } | null> {
  const template = await db.mappingTemplate.findUnique({
    where: { id: templateId },
    select: { fieldMappings: true, valueMappings: true, version: true },
  });
  return template
    ? {
        fieldMappings: template.fieldMappings as ColumnMapping,
        valueMappings: template.valueMappings as ValueMappings,
        version: template.version,
      }
    : null;
}

export interface TemplateInput {
  name?: string | null;
  description?: string | null;
  plugin_key?: string | null;
  target?: string | null;
  field_mappings?: unknown;
  value_mappings?: unknown;
  dealer_group_id?: string | null;
}

/** Templates a caller may read and use: its groups' own and the community's published ones. */
export const visibleTo = (caller: Pick<Caller, 'session'>): Prisma.MappingTemplateWhereInput => ({
  OR: [{ dealerGroupId: inCallerGroups(caller.session) }, { published: true }],
});

/** A template the caller may read (its own or a published one), else 404. */
export async function findTemplate(caller: Pick<Caller, 'db' | 'session'>, id: string) {
  const template = isUuid(id)
    ? await caller.db.mappingTemplate.findFirst({ where: { id, ...visibleTo(caller) } })
    : null;
  if (!template) throw notFound(`mapping template ${id}`);
  return template;
}

async function ownTemplate(caller: Pick<Caller, 'db' | 'session'>, id: string) {
  const template = await findTemplate(caller, id);
  if (!caller.session.dealerGroupIds.includes(template.dealerGroupId))
    throw forbidden('only its owner can change a community template: clone it to make your own');
  return template;
}

function templateBody(input: TemplateInput, target: Target) {
  const fieldMappings =
    input.field_mappings === undefined || input.field_mappings === null
      ? undefined
      : checkedColumnMapping(target, 'field_mappings', input.field_mappings);
  let valueMappings: Prisma.InputJsonValue | undefined;
  if (input.value_mappings !== undefined && input.value_mappings !== null) {
    const problem = valueMappingsProblem(target, input.value_mappings);
    if (problem) throw badInput(problem.field, problem.message);
    valueMappings = input.value_mappings as Prisma.InputJsonValue;
  }
  return { fieldMappings: fieldMappings as Prisma.InputJsonValue | undefined, valueMappings };
}

export async function templatePage(
  caller: Caller,
  args: {
    community?: boolean;
    q?: string | null;
    target?: string | null;
    limit?: number | null;
    offset?: number | null;
  },
) {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.MappingTemplateWhereInput = {
    ...(args.community ? { published: true } : { dealerGroupId: inCallerGroups(caller.session) }),
    ...(args.q ? { name: { contains: likeLiteral(args.q), mode: 'insensitive' } } : {}),
    ...(args.target ? { target: oneOf('target', args.target, TARGETS) } : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.mappingTemplate.count({ where }));
}

export async function createTemplate(caller: Caller, input: TemplateInput): Promise<string> {
  const dealerGroupId = targetGroup(caller.session, input.dealer_group_id);
  if (input.plugin_key && !pluginByKey(input.plugin_key))
    throw badInput('plugin_key', `unknown plugin "${input.plugin_key}"`);
  const target = input.target
    ? oneOf('target', input.target, TARGETS)
    : input.plugin_key
      ? pluginTarget(input.plugin_key)
      : 'vehicles';
  const body = templateBody(input, target);
  return caller.db.$transaction(async (tx) => {
    const template = await tx.mappingTemplate.create({
      data: {
        dealerGroupId,
        name: requiredText('name', input.name, 100),
        description: optionalText('description', input.description, 1000) ?? null,
        pluginKey: input.plugin_key ?? null,
        target,
        fieldMappings: body.fieldMappings ?? {},
        valueMappings: body.valueMappings ?? {},
      },
    });
    await tx.mappingTemplateVersion.create({
      data: {
        templateId: template.id,
        version: 1,
        fieldMappings: template.fieldMappings as Prisma.InputJsonValue,
        valueMappings: template.valueMappings as Prisma.InputJsonValue,
      },
    });
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
        ...(input.description !== undefined
          ? { description: optionalText('description', input.description, 1000) ?? null }
          : {}),
        ...(body.fieldMappings !== undefined ? { fieldMappings: body.fieldMappings } : {}),
        ...(body.valueMappings !== undefined ? { valueMappings: body.valueMappings } : {}),
        ...(remapped ? { version: { increment: 1 } } : {}),
      },
    });
    if (remapped) {
      await tx.mappingTemplateVersion.create({
        data: {
          templateId: id,
          version: updated.version,
          fieldMappings: updated.fieldMappings as Prisma.InputJsonValue,
          valueMappings: updated.valueMappings as Prisma.InputJsonValue,
        },
      });
    }
  });
  return id;
}

export async function deleteTemplate(caller: Caller, id: string): Promise<string> {
  await ownTemplate(caller, id);
  await caller.db.mappingTemplate.delete({ where: { id } });
  return id;
}

export async function cloneTemplate(
  caller: Caller,
  id: string,
  input: { name?: string | null; dealer_group_id?: string | null },
): Promise<string> {
  const source = await findTemplate(caller, id);
  return createTemplate(caller, {
    name: input.name ?? `${source.name} (copy)`,
    description: source.description,
    plugin_key: source.pluginKey,
    target: source.target,
    field_mappings: source.fieldMappings,
    value_mappings: source.valueMappings,
    dealer_group_id: input.dealer_group_id,
  }).then(async (cloneId) => {
    await caller.db.mappingTemplate.update({ where: { id: cloneId }, data: { clonedFromId: source.id } });
    return cloneId;
  });
}

export async function publishTemplate(caller: Caller, id: string, published: boolean): Promise<string> {
  const template = await ownTemplate(caller, id);
  await caller.db.mappingTemplate.update({
    where: { id },
    data: { published, publishedAt: published ? new Date() : null },
  });
  if (published)
    await recordAudit(caller.db, caller, {
      action: 'mapping_template.published',
      targetType: 'mapping_template',
      targetId: id,
      dealerGroupIds: [template.dealerGroupId],
    });
  return id;
}
