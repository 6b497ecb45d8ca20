import { GraphQLError, Kind, type ValueNode } from 'graphql';

/** Money travels as a decimal string with two fraction digits ("18995.00"), never as a float. */
export function formatMoney(value: unknown): string {
  if (value === null || value === undefined) throw new GraphQLError('Money cannot be null');
  const text =
    typeof value === 'object' && 'toFixed' in (value as object)
      ? (value as { toFixed(d: number): string }).toFixed(2)
      : Number(value).toFixed(2);
  if (text === 'NaN') throw new GraphQLError(`Money cannot represent ${String(value)}`);
  return text;
}

const MONEY_PATTERN = /^-?\d{1,10}(\.\d{1,2})?$/;

export function parseMoney(value: unknown): string {
  const text =
    typeof value === 'number'
      ? String(value)
      : typeof value === 'string'
        ? value.trim().replace(/^\$/, '').replace(/,/g, '')
        : null;
  if (text === null || !MONEY_PATTERN.test(text)) {
    throw new GraphQLError(`expected an amount such as "18995.00", got ${JSON.stringify(value)}`);
  }
  return Number(text).toFixed(2);
}

export function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    throw new GraphQLError(
      `expected an ISO 8601 date or time such as "2026-01-31T12:00:00Z", got ${JSON.stringify(value)}`,
    );
  }
  const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(date.getTime())) throw new GraphQLError(`not a valid date: ${JSON.stringify(value)}`);
  return date;
}

export function literalValue(ast: ValueNode): unknown {
  if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return ast.value;
  throw new GraphQLError(`unexpected ${ast.kind} literal`);
}
