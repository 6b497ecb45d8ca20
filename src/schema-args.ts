/**
 * Argument options that also describe the argument to REST callers: the OpenAPI document reads
 * `extensions.openapi` (see http/openapi.ts), so a closed set or a pattern is declared once, here,
 * beside the values the service checks against.
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
export function sortKeys(keys: readonly string[], fallback: string) {
  const key = `-?(${keys.join('|')})`;
  return {
    description: `Comma-separated keys, "-" in front for descending: ${keys.join(', ')}. Default ${fallback}.`,
    extensions: { openapi: { pattern: `^${key}(,${key})*$`, example: '-days_on_lot,price' } },
  };
}
