import { timeSlicer } from '../../time-slice';
import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput } from '../../errors';
import { pageArgs, pageRef, type PageRef, type WindowArgs } from '../../pagination';
import { findInTenant, inCallerGroups, targetGroup } from '../../tenancy';
import { requiredText } from '../../validation';
import { applyRules, ruleProblem, type Rule, type Row } from './engine';

/** Transformation rules of the caller's dealer groups: ordered, validated, and dry-run on samples. */

export interface RuleInput {
  name?: string | null;
  conditions?: unknown;
  action?: unknown;
  position?: number | null;
  enabled?: boolean | null;
  dealer_group_id?: string | null;
}

function checked(conditions: unknown, action: unknown) {
  const problem = ruleProblem(conditions ?? [], action);
  if (problem) throw badInput(problem.field, problem.message);
  return { conditions: (conditions ?? []) as Prisma.InputJsonValue, action: action as Prisma.InputJsonValue };
}

function position(value: number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 100_000)
    throw badInput('position', 'must be a whole number from 0 to 100000');
  return value;
}

export async function rulePage(
  caller: Caller,
  args: WindowArgs & { enabled?: boolean | null },
): Promise<PageRef<Prisma.TransformationRuleWhereInput>> {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.TransformationRuleWhereInput = {
    dealerGroupId: inCallerGroups(caller.session),
    ...(args.enabled != null ? { enabled: args.enabled } : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.transformationRule.count({ where }));
}

function findRule(caller: Caller, id: string) {
  return findInTenant(caller.session, 'transformation rule', id, (where) =>
    caller.db.transformationRule.findFirst({ where }),
  );
}

export async function createRule(caller: Caller, input: RuleInput): Promise<string> {
  const dealerGroupId = targetGroup(caller.session, input.dealer_group_id);
  const body = checked(input.conditions, input.action);
  const last = await caller.db.transformationRule.aggregate({ where: { dealerGroupId }, _max: { position: true } });
  const rule = await caller.db.transformationRule.create({
    data: {
      dealerGroupId,
      name: requiredText('name', input.name, 100),
      position: position(input.position) ?? (last._max.position ?? 0) + 10,
      enabled: input.enabled ?? true,
      ...body,
    },
  });
  return rule.id;
}

export async function updateRule(caller: Caller, id: string, input: RuleInput): Promise<string> {
  const rule = await findRule(caller, id);
  const body =
    input.conditions !== undefined || input.action !== undefined
      ? checked(input.conditions ?? rule.conditions, input.action ?? rule.action)
      : {};
  await caller.db.transformationRule.update({
    where: { id },
    data: {
      ...(input.name !== undefined ? { name: requiredText('name', input.name, 100) } : {}),
      ...(input.position !== undefined ? { position: position(input.position) } : {}),
      ...(input.enabled != null ? { enabled: input.enabled } : {}),
      ...body,
    },
  });
  return id;
}

export async function deleteRule(caller: Caller, id: string): Promise<string> {
  await findRule(caller, id);
  await caller.db.transformationRule.delete({ where: { id } });
  return id;
}

/** The enabled rules of dealer groups, in the order they run (as syncs apply them). */
export async function enabledRules(db: Caller['db'], dealerGroupIds: string[]): Promise<Rule[]> {
  const saved = await db.transformationRule.findMany({
    where: { dealerGroupId: { in: dealerGroupIds }, enabled: true },
    orderBy: [{ position: 'asc' }, { createdAt: 'asc' }],
  });
  return saved.map((rule) => ({
    id: rule.id,
    name: rule.name,
    conditions: rule.conditions as unknown as Rule['conditions'],
    action: rule.action as unknown as Rule['action'],
  }));
}

/** Dry run: each sample record before and after, with the rules that fired. Saved rules unless some are given. */
export async function testRules(caller: Caller, input: { records?: unknown; rules?: unknown }) {
  if (!Array.isArray(input.records) || !input.records.length)
    throw badInput('records', 'give a list of sample records (objects)');
  if (input.records.length > 100) throw badInput('records', 'at most 100 records');
  if (input.records.some((record) => !record || typeof record !== 'object' || Array.isArray(record)))
    throw badInput('records', 'every record must be an object');
  let rules: Rule[];
  if (input.rules !== undefined && input.rules !== null) {
    if (!Array.isArray(input.rules) || input.rules.length > 100)
      throw badInput('rules', 'must be a list of at most 100 {name, conditions, action}');
    rules = input.rules.map((rule, index) => {
      const spec = (rule ?? {}) as { name?: string; conditions?: unknown; action?: unknown };
      const problem = ruleProblem(spec.conditions ?? [], spec.action);
      if (problem) throw badInput(`rules[${index}].${problem.field}`, problem.message);
      return {
        id: `draft-${index + 1}`,
        name: spec.name ?? `rule ${index + 1}`,
        conditions: (spec.conditions ?? []) as Rule['conditions'],
        action: spec.action as Rule['action'],
      };
    });
  } else {
    rules = await enabledRules(caller.db, [...caller.session.dealerGroupIds]);
  }
  const names = new Map(rules.map((rule) => [rule.id, rule.name]));
  const breathe = timeSlicer();
  const results = [];
  for (const before of input.records as Row[]) {
    const outcome = applyRules(before, rules);
    results.push({
      before,
      after: outcome.row,
      skipped: outcome.skipped,
      skip_reason: outcome.skipReason,
      flags: outcome.flags,
      fired: outcome.fired.map((id) => ({ id, name: names.get(id) ?? id })),
    });
    await breathe();
  }
  return results;
}
