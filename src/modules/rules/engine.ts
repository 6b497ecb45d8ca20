import { RE2JS } from 're2js';
import { patternProblem } from '../../validation';

/** Transformation rules: ordered conditions and actions applied to each source row during a sync. */

export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'starts_with',
  'matches',
  'in',
  'greater_than',
  'less_than',
  'is_empty',
  'is_not_empty',
] as const;
export const ACTIONS = [
  'set_field',
  'map_values',
  'trim',
  'uppercase',
  'lowercase',
  'regex_replace',
  'skip_row',
  'flag',
] as const;
export type Operator = (typeof OPERATORS)[number];
export type ActionType = (typeof ACTIONS)[number];

export interface Condition {
  field: string;
  operator: Operator;
  value?: unknown;
}
export type Action =
  | { type: 'set_field'; field: string; value?: unknown; template?: string }
  | { type: 'map_values'; field: string; mapping: Record<string, string>; case_insensitive?: boolean }
  | { type: 'trim' | 'uppercase' | 'lowercase'; field: string }
  | { type: 'regex_replace'; field: string; pattern: string; replacement: string }
  | { type: 'skip_row'; reason?: string }
  | { type: 'flag'; message: string };

export interface Rule {
  id: string;
  name: string;
  conditions: Condition[];
  action: Action;
}
export type Row = Record<string, unknown>;

export interface RuleOutcome {
  row: Row;
  skipped: boolean;
  skipReason: string | null;
  flags: string[];
  fired: string[];
}

const MAX_VALUE_LENGTH = 10_000;
const FIELD = /^[a-z][a-z0-9_]{0,63}$/;

const isEmpty = (value: unknown) =>
  value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
const text = (value: unknown) =>
  (value === null || value === undefined ? '' : String(value)).slice(0, MAX_VALUE_LENGTH);
/** Numbers as feeds write them: "$18,995.00" is 18995. */
const number = (value: unknown) => {
  const parsed = Number(text(value).replace(/[$,\s]/g, ''));
  return Number.isFinite(parsed) && text(value).trim() !== '' ? parsed : null;
};

/**
 * Tenant patterns run on RE2 (linear in the input, whatever the pattern), never on V8's backtracking
 * engine: `((a)+)+$` on 25 characters held the event loop for seconds there. Case-insensitive, as rules are.
 */
const regexCache = new Map<string, RE2JS>();
function regex(pattern: string): RE2JS {
  let compiled = regexCache.get(pattern);
  if (!compiled) {
    compiled = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, compiled);
  }
  return compiled;
}

export function conditionHolds(row: Row, condition: Condition): boolean {
  const value = row[condition.field];
  const expected = condition.value;
  switch (condition.operator) {
    case 'equals':
      return text(value).toLowerCase() === text(expected).toLowerCase();
    case 'not_equals':
      return text(value).toLowerCase() !== text(expected).toLowerCase();
    case 'contains':
      return text(value).toLowerCase().includes(text(expected).toLowerCase());
    case 'starts_with':
      return text(value).toLowerCase().startsWith(text(expected).toLowerCase());
    case 'matches':
      return regex(String(expected)).test(text(value));
    case 'in':
      return (
        Array.isArray(expected) && expected.some((entry) => text(entry).toLowerCase() === text(value).toLowerCase())
      );
    case 'greater_than': {
      const [left, right] = [number(value), number(expected)];
      return left !== null && right !== null && left > right;
    }
    case 'less_than': {
      const [left, right] = [number(value), number(expected)];
      return left !== null && right !== null && left < right;
    }
    case 'is_empty':
      return isEmpty(value);
    case 'is_not_empty':
      return !isEmpty(value);
  }
}

/** Applies the rules in order to one row; a skip_row stops the rest. The input row is not changed. */
export function applyRules(input: Row, rules: Rule[]): RuleOutcome {
  const row: Row = { ...input };
  const outcome: RuleOutcome = { row, skipped: false, skipReason: null, flags: [], fired: [] };
  for (const rule of rules) {
    if (!rule.conditions.every((condition) => conditionHolds(row, condition))) continue;
    outcome.fired.push(rule.id);
    const action = rule.action;
    switch (action.type) {
      case 'set_field':
        row[action.field] =
          action.template !== undefined
            ? action.template.replace(/\{([a-z][a-z0-9_]*)\}/g, (_match, name: string) => text(row[name])).trim()
            : (action.value ?? null);
        break;
      case 'map_values': {
        const current = text(row[action.field]);
        const entry = Object.entries(action.mapping).find(([from]) =>
          action.case_insensitive === false ? from === current : from.toLowerCase() === current.toLowerCase(),
        );
        if (entry) row[action.field] = entry[1];
        break;
      }
      case 'trim':
        if (typeof row[action.field] === 'string')
          row[action.field] = (row[action.field] as string).trim().replace(/\s+/g, ' ');
        break;
      case 'uppercase':
        if (typeof row[action.field] === 'string') row[action.field] = (row[action.field] as string).toUpperCase();
        break;
      case 'lowercase':
        if (typeof row[action.field] === 'string') row[action.field] = (row[action.field] as string).toLowerCase();
        break;
      case 'regex_replace':
        if (!isEmpty(row[action.field]))
          row[action.field] = regex(action.pattern).matcher(text(row[action.field])).replaceAll(action.replacement);
        break;
      case 'flag':
        outcome.flags.push(action.message);
        break;
      case 'skip_row':
        outcome.skipped = true;
        outcome.skipReason = action.reason ?? rule.name;
        return outcome;
    }
  }
  return outcome;
}

/** Why a rule cannot be used, naming the part that is wrong; null when it is sound. */
export function ruleProblem(conditions: unknown, action: unknown): { field: string; message: string } | null {
  if (!Array.isArray(conditions)) return { field: 'conditions', message: 'must be a list of {field, operator, value}' };
  if (conditions.length > 20) return { field: 'conditions', message: 'at most 20 conditions' };
  for (const [index, condition] of conditions.entries()) {
    const at = `conditions[${index}]`;
    if (!condition || typeof condition !== 'object') return { field: at, message: 'must be an object' };
    const { field, operator, value } = condition as Record<string, unknown>;
    if (typeof field !== 'string' || !FIELD.test(field))
      return { field: `${at}.field`, message: 'must be a field name (lower case, digits, _)' };
    if (!OPERATORS.includes(operator as Operator))
      return { field: `${at}.operator`, message: `must be one of ${OPERATORS.join(', ')}` };
    if (operator === 'in' && !Array.isArray(value)) return { field: `${at}.value`, message: 'must be a list for "in"' };
    if ((operator === 'greater_than' || operator === 'less_than') && number(value) === null)
      return { field: `${at}.value`, message: 'must be a number' };
    if (operator === 'matches') {
      const problem = typeof value === 'string' ? patternProblem(value) : 'must be a regular expression';
      if (problem) return { field: `${at}.value`, message: problem };
    }
    if (
      !['is_empty', 'is_not_empty', 'in'].includes(operator as string) &&
      (value === undefined || typeof value === 'object')
    ) {
      return { field: `${at}.value`, message: 'must be a string or number' };
    }
  }
  if (!action || typeof action !== 'object')
    return { field: 'action', message: `must be an object with a type: ${ACTIONS.join(', ')}` };
  const spec = action as Record<string, unknown>;
  if (!ACTIONS.includes(spec.type as ActionType))
    return { field: 'action.type', message: `must be one of ${ACTIONS.join(', ')}` };
  if (
    !['skip_row', 'flag'].includes(spec.type as string) &&
    (typeof spec.field !== 'string' || !FIELD.test(spec.field))
  ) {
    return { field: 'action.field', message: 'must be a field name (lower case, digits, _)' };
  }
  switch (spec.type) {
    case 'set_field':
      if (spec.template !== undefined && typeof spec.template !== 'string')
        return { field: 'action.template', message: 'must be a string such as "{year} {make} {model}"' };
      if (spec.template === undefined && spec.value === undefined)
        return { field: 'action.value', message: 'give a value or a template' };
      break;
    case 'map_values':
      if (
        !spec.mapping ||
        typeof spec.mapping !== 'object' ||
        Array.isArray(spec.mapping) ||
        !Object.values(spec.mapping).every((entry) => typeof entry === 'string')
      ) {
        return {
          field: 'action.mapping',
          message: 'must be an object of raw value → replacement, e.g. {"Blk": "Black"}',
        };
      }
      break;
    case 'regex_replace': {
      if (typeof spec.replacement !== 'string') return { field: 'action.replacement', message: 'must be a string' };
      const problem = typeof spec.pattern === 'string' ? patternProblem(spec.pattern) : 'must be a regular expression';
      if (problem) return { field: 'action.pattern', message: problem };
      break;
    }
    case 'flag':
      if (typeof spec.message !== 'string' || !spec.message.trim())
        return { field: 'action.message', message: 'must say what is wrong' };
      break;
  }
  return null;
}
