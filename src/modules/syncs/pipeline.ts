import { applyRules, type Rule } from '../rules/engine';
import { RowProblem, toRecord, type TypedRecord } from './records';
import type { PluginDefinition } from '../plugins/registry';

/**
 * One feed row through the steps every sync, preview and connection test shares: the integration's
 * column mapping, the dealer group's transformation rules, then validation into a record. Keeping
 * them in one function is what makes a connection test answer as the sync will.
 */

export type RowOutcome =
  | { kind: 'skipped'; reason: string | null }
  | { kind: 'record'; record: TypedRecord; flags: string[] }
  | { kind: 'failed'; field: string | null; message: string; vin: string | null };

export interface Pipeline {
  target: PluginDefinition['target'];
  mapRow(values: Record<string, unknown>): Record<string, unknown>;
  rules: Rule[];
  defaultLeadType: string;
}

export function runRow(pipeline: Pipeline, values: Record<string, unknown>): RowOutcome {
  const outcome = applyRules(pipeline.mapRow(values), pipeline.rules);
  if (outcome.skipped) return { kind: 'skipped', reason: outcome.skipReason };
  try {
    return { kind: 'record', record: toRecord(pipeline.target, outcome.row, { defaultLeadType: pipeline.defaultLeadType }), flags: outcome.flags };
  } catch (error) {
    if (!(error instanceof RowProblem)) throw error;
    const vin = typeof outcome.row.vin === 'string' ? outcome.row.vin.trim().toUpperCase() : null;
    return { kind: 'failed', field: error.field, message: error.field ? `${error.field}: ${error.message}` : error.message, vin };
  }
}
