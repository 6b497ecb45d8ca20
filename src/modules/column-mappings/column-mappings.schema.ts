import { builder } from '../../builder';
import { itemsLoaded, pageOf } from '../../pages';
import { TARGETS } from '../field-mapping/fields';
import type { Suggestion } from '../field-mapping/detect';
import {
  detect,
  fileColumnMappings,
  previewFileColumns,
  setFileColumnMapping,
  type FileColumnMapping,
  type PreviewColumn,
} from './column-mappings.service';
import { choice, listArgs } from '../../schema-args';
import { restOperations } from '../../http/operations';

/** File column mappings (that section of docs/operations.md): an integration's column mapping, a preview of its latest file, and detection. */

const columnMappingOperation = restOperations('File column mappings');

const FileColumnMappingRef = builder.objectRef<FileColumnMapping>('FileColumnMapping').implement({
  description: "An integration's source column → field mapping; columns not listed map by their known names.",
  fields: (t) => ({
    integration_id: t.exposeID('integration_id'),
    integration_name: t.exposeString('integration_name'),
    plugin_key: t.exposeString('plugin_key'),
    target: t.exposeString('target', { description: TARGETS.join(', ') }),
    mapping: t.expose('mapping', { type: 'JSON', description: '{ "Stk No": "stock_number", "Lot Location": null }' }),
    fields: t.exposeStringList('fields', { description: 'The fields columns can map to.' }),
  }),
});

const FileColumnMappingPage = pageOf('FileColumnMappingPage', 'mappings', itemsLoaded(FileColumnMappingRef));

const SuggestionRef = builder.objectRef<Suggestion>('ColumnSuggestion').implement({
  fields: (t) => ({
    column: t.exposeString('column'),
    field: t.exposeString('field', { nullable: true }),
    confidence: t.exposeFloat('confidence', { description: '0 to 1' }),
    reason: t.exposeString('reason'),
  }),
});

const PreviewColumnRef = builder.objectRef<PreviewColumn>('FileColumnPreview').implement({
  fields: (t) => ({
    column: t.exposeString('column'),
    mapped_to: t.exposeString('mapped_to', { nullable: true }),
    mapped_by: t.exposeString('mapped_by', { description: 'integration, template, known_name or unmapped' }),
    samples: t.expose('samples', { type: 'JSON' }),
  }),
});

const FilePreview = builder
  .objectRef<Awaited<ReturnType<typeof previewFileColumns>>>('FileColumnMappingPreview')
  .implement({
    fields: (t) => ({
      integration_id: t.exposeID('integration_id'),
      file_name: t.exposeString('file_name', { nullable: true }),
      columns: t.field({ type: [PreviewColumnRef], resolve: (preview) => preview.columns }),
      suggestions: t.field({ type: [SuggestionRef], resolve: (preview) => preview.suggestions }),
    }),
  });

const Detection = builder.objectRef<ReturnType<typeof detect>>('ColumnMappingDetection').implement({
  fields: (t) => ({
    target: t.exposeString('target'),
    suggestions: t.field({ type: [SuggestionRef], resolve: (result) => result.suggestions }),
    mapping: t.expose('mapping', {
      type: 'JSON',
      description: 'The suggested mapping, ready for PUT /file-column-mappings/:integrationId.',
    }),
    unmapped_fields: t.exposeStringList('unmapped_fields'),
  }),
});

builder.queryFields((t) => ({
  fileColumnMappings: t.field({
    ...columnMappingOperation('GET /file-column-mappings', 'List file column mappings'),
    type: FileColumnMappingPage,
    authScopes: { scope: 'mappings:read' },
    args: { integration_id: t.arg.id(), ...listArgs(t) },
    resolve: (_root, args, context) =>
      fileColumnMappings(context, { ...args, integration_id: args.integration_id?.toString() }),
  }),
  fileColumnMappingPreview: t.field({
    ...columnMappingOperation('GET /file-column-mappings/:integrationId/preview', "Preview the latest file's mapping"),
    type: FilePreview,
    description: "The latest file's headers, the current mapping of each, sample values and suggestions.",
    authScopes: { scope: 'mappings:read' },
    args: { integrationId: t.arg.id({ required: true }) },
    resolve: (app, args, context) => previewFileColumns(context, app, String(args.integrationId)),
  }),
  detectFileColumnMapping: t.field({
    ...columnMappingOperation('POST /file-column-mappings/detect', "Detect a file's column mapping"),
    type: Detection,
    description: 'Suggests a mapping from a header row and sample rows, with a confidence per column.',
    authScopes: { scope: 'mappings:read' },
    args: {
      headers: t.arg.stringList({ required: true }),
      rows: t.arg({ type: 'JSON', description: 'Sample rows: lists in header order, or objects keyed by header.' }),
      target: t.arg.string(choice(TARGETS)),
    },
    resolve: (_root, args) => detect(args),
  }),
}));

builder.mutationFields((t) => ({
  setFileColumnMapping: t.field({
    ...columnMappingOperation('PUT /file-column-mappings/:integrationId', "Set an integration's column mapping"),
    type: FileColumnMappingRef,
    authScopes: { scope: 'mappings:write' },
    args: { integrationId: t.arg.id({ required: true }), mapping: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => setFileColumnMapping(context, String(args.integrationId), args.mapping),
  }),
}));
