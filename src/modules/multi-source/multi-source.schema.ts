import { builder } from '../../builder';
import { itemsLoaded, pageOf } from '../../pages';
import { VehicleDetail } from '../inventory/inventory.schema';
import { findVehicleIdByVin } from '../inventory/inventory.service';
import {
  CONFLICT_KINDS,
  conflicts,
  priorities,
  rebuild,
  setPriorities,
  type Conflict,
  type DealerPriorities,
} from './multi-source.service';
import { choices, listArgs } from '../../schema-args';
import { restOperations } from '../../http/operations';

const operation = restOperations('Multi-source');

/** The Multi-source section of docs/operations.md: source priorities, the merged vehicle, conflicts and discrepancies, and rebuilds. */

const Priorities = builder.objectRef<DealerPriorities>('SourcePriorities').implement({
  description:
    'A rooftop\'s field-level source priority: per field, sources in order of trust; "*" orders the fields not listed.',
  fields: (t) => ({
    dealer_id: t.exposeID('dealer_id'),
    dealer_name: t.exposeString('dealer_name'),
    priorities: t.expose('priorities', { type: 'JSON' }),
    known_sources: t.exposeStringList('known_sources', {
      description: 'Sources with records or integrations at this rooftop.',
    }),
  }),
});
const PriorityList = builder.objectRef<DealerPriorities[]>('SourcePriorityList').implement({
  fields: (t) => ({ dealers: t.field({ type: [Priorities], resolve: (rows) => rows }) }),
});

export const ConflictRef = builder.objectRef<Conflict>('SourceConflict').implement({
  description: 'A field where sources disagree, or a discrepancy in the record.',
  fields: (t) => ({
    vehicle_id: t.exposeID('vehicle_id'),
    vin: t.exposeString('vin'),
    dealer_id: t.exposeID('dealer_id'),
    field: t.exposeString('field'),
    kind: t.exposeString('kind', { description: CONFLICT_KINDS.join(', ') }),
    winning_source: t.exposeString('winning_source', { nullable: true }),
    difference: t.exposeFloat('difference', {
      nullable: true,
      description: 'For prices and mileage: highest minus lowest value.',
    }),
    details: t.expose('details', { type: 'JSON', description: 'What each source said, or what is wrong.' }),
    detected_at: t.expose('detected_at', { type: 'DateTime' }),
  }),
});
const ConflictPage = pageOf('SourceConflictPage', 'conflicts', itemsLoaded(ConflictRef));
const Rebuild = builder.objectRef<Awaited<ReturnType<typeof rebuild>>>('MultiSourceRebuild').implement({
  fields: (t) => ({
    dealer_id: t.exposeID('dealer_id'),
    vehicles_examined: t.exposeInt('vehicles_examined'),
    vehicles_changed: t.exposeInt('vehicles_changed'),
  }),
});

builder.prismaObjectField(VehicleDetail, 'discrepancies', (t) =>
  t.field({
    type: [ConflictRef],
    description: 'Discrepancies and source disagreements of this vehicle (as GET /multi-source/conflicts lists them).',
    select: { id: true },
    resolve: async (vehicle, _args, context) =>
      (await conflicts(context, { vehicle_id: vehicle.id, limit: 100 })).items,
  }),
);

builder.queryFields((t) => ({
  sourcePriorities: t.field({
    ...operation('GET /multi-source/priorities', 'List source priorities'),
    type: PriorityList,
    authScopes: { scope: 'inventory:read' },
    args: { dealer_id: t.arg.idList() },
    resolve: (_root, args, context) => priorities(context, { dealer_id: args.dealer_id?.map(String) }),
  }),
  multiSourceVehicle: t.prismaField({
    ...operation('GET /multi-source/vehicles/:vin', 'Get a merged vehicle with its sources'),
    type: VehicleDetail,
    description: 'The merged record: each field with its winning source and the values it beat, plus discrepancies.',
    authScopes: { scope: 'inventory:read' },
    args: { vin: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.vehicle.findUniqueOrThrow({
        ...query,
        where: { id: await findVehicleIdByVin(context.db, context.session, args.vin) },
      }),
  }),
  sourceConflicts: t.field({
    ...operation('GET /multi-source/conflicts', 'List source conflicts'),
    type: ConflictPage,
    description: 'Fields where sources disagree and records with discrepancies, most recent first.',
    authScopes: { scope: 'inventory:read' },
    args: {
      dealer_id: t.arg.idList(),
      kind: t.arg.stringList(choices(CONFLICT_KINDS)),
      price_threshold: t.arg.float({
        description: 'Price differences above this are price_disagreement (default 500).',
      }),
      mileage_threshold: t.arg.int({
        description: 'Mileage differences above this are mileage_disagreement (default 250).',
      }),
      ...listArgs(t),
    },
    resolve: (_root, args, context) => conflicts(context, { ...args, dealer_id: args.dealer_id?.map(String) }),
  }),
}));

builder.mutationFields((t) => ({
  setSourcePriorities: t.field({
    ...operation('PUT /multi-source/priorities', 'Set source priorities'),
    type: Priorities,
    description: "Sets a rooftop's priorities; POST /multi-source/rebuild re-merges its vehicles under them.",
    authScopes: { scope: 'integrations:write' },
    args: { dealer_id: t.arg.id({ required: true }), priorities: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) =>
      setPriorities(context, { dealer_id: String(args.dealer_id), priorities: args.priorities }),
  }),
  rebuildMultiSource: t.field({
    ...operation('POST /multi-source/rebuild', 'Rebuild merged vehicles'),
    type: Rebuild,
    authScopes: { scope: 'integrations:write' },
    args: { dealer_id: t.arg.id({ required: true }) },
    resolve: (app, args, context) => rebuild(context, app.database.pool, { dealer_id: String(args.dealer_id) }),
  }),
}));
