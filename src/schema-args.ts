import type { ArgBuilder } from '@pothos/core';
import type { BuilderTypes } from './builder';
import { CURSOR_MAX_LENGTH, CURSOR_PATTERN } from './keyset';

/**
 * Argument options that also describe the argument to REST callers: the OpenAPI document reads
 * `extensions.openapi` (see http/openapi.ts), so a closed set or a pattern is declared once, here,
 * beside the values the service checks against. Below them, the argument blocks several lists share.
 */

/** A string argument that takes one of a closed set of values. */
export function choice(values: readonly string[], description = `One of ${values.join(', ')}.`) {
  return { description, extensions: { openapi: { enum: values } } };
}

/** A list argument whose items each come from a closed set. */
export function choices(values: readonly string[], description = `One or more of ${values.join(', ')}.`) {
  return { description, extensions: { openapi: { enum: values } } };
}

/** A sort argument: comma-separated keys, each optionally prefixed with "-" for descending. */
export function sortKeys(keys: readonly string[], fallback: string, example = fallback) {
  const key = `-?(${keys.join('|')})`;
  return {
    description: `Comma-separated keys, "-" in front for descending: ${keys.join(', ')}. Default ${fallback}.`,
    extensions: { openapi: { pattern: `^${key}(,${key})*$`, example } },
  };
}

/** What an argument block is built with: any field builder's `t`. */
export type FieldArgsBuilder = { arg: ArgBuilder<BuilderTypes> };

/**
 * The `limit` and `offset` arguments of a list. Their bounds and defaults reach the OpenAPI document
 * from the list convention (http/openapi.ts); a list that says more describes them here.
 */
export function listArgs(t: FieldArgsBuilder, describe: { limit?: string; offset?: string } = {}) {
  return { limit: t.arg.int({ description: describe.limit }), offset: t.arg.int({ description: describe.offset }) };
}

/**
 * `limit`, `offset` and `after` of a list that also walks by cursor (inventory, calls, leads, sales):
 * `after` takes a page's `pagination.next_cursor` and answers the page after it, in the same sort.
 */
export function cursorListArgs(t: FieldArgsBuilder, describe: { limit?: string; offset?: string } = {}) {
  return {
    ...listArgs(t, describe),
    after: t.arg.string({
      description:
        "A page's pagination.next_cursor: answers the rows after that page's last one, in the same sort, however rows change meanwhile. Not with offset.",
      extensions: { openapi: { pattern: CURSOR_PATTERN, maxLength: CURSOR_MAX_LENGTH } },
    }),
  };
}

/** Rooftops and a period, as calls, leads and sales filter by them; `happened` names the instant ("Sold" at or after). */
export function rooftopPeriodArgs(t: FieldArgsBuilder, happened: string) {
  return {
    dealer_id: t.arg.idList(),
    from: t.arg({ type: 'DateTime', description: `${happened} at or after.` }),
    to: t.arg({ type: 'DateTime', description: `${happened} at or before.` }),
  };
}
