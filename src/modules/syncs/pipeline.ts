import type { Db } from '../../db/database';
import type { Integration } from '../../generated/prisma/client';
import type { AppServices } from '../../app-services';
import { applyRules, type Rule } from '../rules/engine';
import { enabledRules } from '../rules/rules.service';
import type { PluginDefinition } from '../plugins/registry';
import { rowMapper, type ColumnMapping, type MappingLayers } from '../field-mapping/mapping';
import { templateMappings } from '../mapping-templates/mapping-templates.service';
import { RowProblem, toRecord, type TypedRecord } from './records';
import { FeedError, pullJson, readAdf, readCsv, type ReadProgress, type SourceRow } from './parsers';

/**
 * A feed's rows through the steps every sync, column preview and connection test shares: read (the
 * file streamed, or the API pulled page by page), the integration's column mapping and its
 * template's, the dealer group's transformation rules, then validation into a record. They all call
 * `pipelineRows`, which is what makes a connection test answer as the sync will.
 */

export type RowOutcome =
  | { kind: 'skipped'; reason: string | null }
  | { kind: 'record'; record: TypedRecord; flags: string[] }
  | { kind: 'failed'; field: string | null; message: string; vin: string | null };

/** One feed row: where it stood, what the feed sent, and what the pipeline made of it. */
export interface PipelineRow {
  line: number;
  values: Record<string, unknown>;
  outcome: RowOutcome;
}

/** An integration's steps after reading, loaded once per run. */
export interface Pipeline {
  target: PluginDefinition['target'];
  /** The integration's own column mapping, its template's, and the template's value mappings. */
  layers: MappingLayers;
  /** The template version the layers come from, which the run records. */
  templateVersion: number | null;
  rules: Rule[];
  defaultLeadType: string;
}

/** What a pipeline reads: the integration's file (file feeds) or its API (pulls); a probe pulls one page. */
export interface FeedSource {
  integration: Integration;
  plugin: PluginDefinition;
  file: string | null;
  probe?: boolean;
  onProgress?: (progress: ReadProgress) => void;
}

type ReadServices = Pick<AppServices, 'secrets' | 'feeds'>;

/** An integration's mapping layers and its group's enabled rules. */
export async function loadPipeline(
  db: Db,
  integration: Pick<Integration, 'columnMapping' | 'templateId' | 'dealerGroupId' | 'config'>,
  plugin: PluginDefinition,
): Promise<Pipeline> {
  const [template, rules] = await Promise.all([
    integration.templateId ? templateMappings(db, integration.templateId) : null,
    enabledRules(db, [integration.dealerGroupId]),
  ]);
  return {
    target: plugin.target,
    layers: {
      columns: integration.columnMapping as ColumnMapping,
      template: template?.fieldMappings ?? {},
      values: template?.valueMappings ?? {},
    },
    templateVersion: template?.version ?? null,
    rules,
    defaultLeadType: String((integration.config as Record<string, unknown>).default_lead_type ?? 'used'),
  };
}

/** Every row of a feed through the pipeline, in order, as it is read. */
export async function* pipelineRows(
  app: ReadServices,
  source: FeedSource,
  pipeline: Pipeline,
): AsyncGenerator<PipelineRow> {
  const mapRow = rowMapper(pipeline.target, pipeline.layers);
  for await (const row of readFeed(app, source)) {
    yield { line: row.line, values: row.values, outcome: runRow(pipeline, mapRow(row.values)) };
  }
}

/** One mapped row through the rules, then validation into a record. */
function runRow(pipeline: Pipeline, mapped: Record<string, unknown>): RowOutcome {
  const outcome = applyRules(mapped, pipeline.rules);
  if (outcome.skipped) return { kind: 'skipped', reason: outcome.skipReason };
  try {
    return {
      kind: 'record',
      record: toRecord(pipeline.target, outcome.row, { defaultLeadType: pipeline.defaultLeadType }),
      flags: outcome.flags,
    };
  } catch (error) {
    if (!(error instanceof RowProblem)) throw error;
    const vin = typeof outcome.row.vin === 'string' ? outcome.row.vin.trim().toUpperCase() : null;
    return {
      kind: 'failed',
      field: error.field,
      message: error.field ? `${error.field}: ${error.message}` : error.message,
      vin,
    };
  }
}

/** The feed's raw rows: its file read as a stream, or its API pulled page by page (one page for a probe). */
function readFeed(
  app: ReadServices,
  { integration, plugin, file, probe, onProgress }: FeedSource,
): AsyncIterable<SourceRow> {
  const config = integration.config as Record<string, unknown>;
  if (plugin.delivery === 'http_pull') {
    const credentials = integration.credentials
      ? (JSON.parse(app.secrets.open(integration.credentials, integration.id)) as Record<string, string>)
      : {};
    return pullJson(
      {
        url: String(config.url),
        recordsPath: String(config.records_path ?? 'vehicles'),
        pageSize: Number(config.page_size ?? 100),
        apiKey: credentials.api_key ?? null,
        allowPrivateNetworks: app.feeds.allowPrivateNetworks,
        ...(probe ? { maxPages: 1, timeoutMs: 10_000 } : {}),
      },
      onProgress,
    );
  }
  if (!file) throw new FeedError('no file to read');
  if (plugin.formats.includes('xml')) return readAdf(file, onProgress);
  return readCsv(
    file,
    {
      delimiter: config.delimiter as string,
      encoding: config.encoding as string,
      headerRow: config.header_row as number,
    },
    onProgress,
  );
}
