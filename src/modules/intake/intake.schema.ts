import { builder } from '../../builder';
import { restOperations } from '../../http/operations';
import { Lead, LeadStatusEnum, LeadTypeEnum } from '../leads/leads.schema';
import { Call, CallDirectionEnum, CallStatusEnum } from '../calls/calls.schema';
import { VehicleCondition, VehicleDetail, VehicleStatus } from '../inventory/inventory.schema';
import {
  createLead,
  DUPLICATE_WINDOW_HOURS,
  LEAD_DUPLICATES,
  MAX_ADF_BYTES,
  type LeadIntake,
} from './lead-intake.service';
import { createCall, type CallIntake } from './call-intake.service';
import { upsertVehicle, type VehicleIntake } from './vehicle-intake.service';

/**
 * Data in through the API: POST /leads (JSON or ADF), POST /calls and PUT /inventory/:vin, in the
 * Leads, Calls and Inventory sections of docs/operations.md. Each answers the stored record and
 * whether this request created it.
 */

const leadOperation = restOperations('Leads');
const callOperation = restOperations('Calls');
const inventoryOperation = restOperations('Inventory');

const LeadDuplicateEnum = builder.enumType('LeadDuplicate', {
  description: 'Why a lead sent in was not stored: the lead it repeats is answered instead.',
  values: {
    same_external_id: { description: 'The same provider sent a lead with this id before.' },
    same_customer_and_vehicle: {
      description: `The same customer (email or phone) asked about the same vehicle at the same rooftop within ${DUPLICATE_WINDOW_HOURS} hours.`,
    },
  } satisfies Record<(typeof LEAD_DUPLICATES)[number], unknown>,
});

const CreateLeadResult = builder.objectRef<LeadIntake>('CreateLeadResult').implement({
  description: 'A lead sent in: the one stored now, or the earlier lead it repeats.',
  fields: (t) => ({
    lead: t.prismaField({
      type: Lead,
      resolve: (query, result, _args, context) =>
        context.db.lead.findUniqueOrThrow({ ...query, where: { id: result.leadId } }),
    }),
    created: t.exposeBoolean('created', { description: 'False when the lead repeats one already stored.' }),
    duplicate: t.field({
      type: LeadDuplicateEnum,
      nullable: true,
      description: 'Why nothing was stored; null when the lead was created.',
      resolve: (result) => result.duplicate,
    }),
  }),
});

const CreateCallResult = builder.objectRef<CallIntake>('CreateCallResult').implement({
  description: 'A call recorded: the one stored now, or the same call (provider and id) stored before.',
  fields: (t) => ({
    call: t.prismaField({
      type: Call,
      resolve: (query, result, _args, context) =>
        context.db.call.findUniqueOrThrow({ ...query, where: { id: result.callId } }),
    }),
    created: t.exposeBoolean('created', {
      description: 'False when this provider sent this call before; nothing changed.',
    }),
  }),
});

const UpsertVehicleResult = builder.objectRef<VehicleIntake>('UpsertVehicleResult').implement({
  description: "The merged vehicle after the caller's source said its part, with every field's provenance.",
  fields: (t) => ({
    vehicle: t.prismaField({
      type: VehicleDetail,
      resolve: (query, result, _args, context) =>
        context.db.vehicle.findUniqueOrThrow({ ...query, where: { id: result.vehicleId } }),
    }),
    created: t.exposeBoolean('created', { description: 'True when the vehicle was not in inventory before.' }),
    source: t.exposeString('source', {
      description:
        "The source this write is recorded as: api_ and the API key's name in snake case, or manual for a signed-in user. List it in PUT /multi-source/priorities to rank it.",
    }),
  }),
});

const ADF_EXAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<?adf version="1.0"?>
<adf>
  <prospect status="new">
    <id sequence="1" source="Cars.com">CARS-88213001</id>
    <requestdate>2026-11-18T14:32:11-07:00</requestdate>
    <vehicle interest="buy" status="used">
      <year>2021</year><make>Toyota</make><model>RAV4</model><vin>2T3AB3FA4MA100200</vin>
    </vehicle>
    <customer>
      <contact>
        <name part="first">Maria</name><name part="last">Gonzalez</name>
        <email>maria.gonzalez@example.com</email><phone>(303) 555-0147</phone>
      </contact>
      <comments>Is this still available?</comments>
    </customer>
    <vendor><vendorname>Summit Toyota North</vendorname></vendor>
    <provider><name part="full">Cars.com</name></provider>
  </prospect>
</adf>`;

builder.mutationFields((t) => ({
  createLead: t.field({
    ...leadOperation('POST /leads', 'Create a lead', {
      status: 201,
      createdFlag: 'created',
      responseDescription: 'The lead, stored now.',
      documentBody: {
        argument: 'adf',
        mediaTypes: ['application/xml', 'text/xml'],
        maxBytes: MAX_ADF_BYTES,
        queryArguments: ['dealer_id', 'provider'],
        description:
          'An ADF 1.0 document with one <prospect>, as lead providers send it. The rooftop is dealer_id (query parameter) or the one the <vendor> names; no DOCTYPE.',
        example: ADF_EXAMPLE,
      },
    }),
    type: CreateLeadResult,
    description: `A lead from a website, CRM or lead provider: the lead fields as JSON, or an ADF document. A lead repeating one from the same customer about the same vehicle at the rooftop within ${DUPLICATE_WINDOW_HOURS} hours, or one this provider sent with the same external_id, is not stored again: the earlier lead is answered (created false, 200). A new lead gets its canonical source and deal link as feed leads do.`,
    authScopes: { scope: 'leads:write' },
    args: {
      dealer_id: t.arg.id({ description: 'The rooftop; for ADF, optional when the <vendor> names one of yours.' }),
      provider: t.arg.string({
        description:
          'The system sending the lead (with external_id, its natural key); default "adf" for ADF, else the source the caller writes as.',
      }),
      external_id: t.arg.string({ description: "The provider's id of the lead; one is made up when absent." }),
      received_at: t.arg({ type: 'DateTime', description: 'When the customer asked; default now.' }),
      type: t.arg({ type: LeadTypeEnum, description: 'Default used.' }),
      status: t.arg({ type: LeadStatusEnum, description: 'Default new.' }),
      first_name: t.arg.string(),
      last_name: t.arg.string(),
      email: t.arg.string({ description: 'An email or a phone is required.' }),
      phone: t.arg.string({ description: '10 digits, or + and a country code.' }),
      vehicle_year: t.arg.int(),
      vehicle_make: t.arg.string(),
      vehicle_model: t.arg.string(),
      vehicle_vin: t.arg.string({ description: 'A valid VIN (check digit included).' }),
      raw_source: t.arg.string({ description: 'The lead source as the provider names it ("Cars.com").' }),
      comments: t.arg.string({ description: 'At most 4000 characters.' }),
      assignee: t.arg.string(),
      adf: t.arg.string({
        description:
          'An ADF 1.0 document with one <prospect> instead of the lead fields (beside it only dealer_id and provider).',
      }),
    },
    resolve: (_app, args, context) => createLead(context, { ...args, dealer_id: args.dealer_id?.toString() }),
  }),
  createCall: t.field({
    ...callOperation('POST /calls', 'Record a call', {
      status: 201,
      createdFlag: 'created',
      responseDescription: 'The call, stored now.',
    }),
    type: CreateCallResult,
    description:
      'A call from a call-tracking system. The provider and its call id are the natural key: the same call sent again answers the stored one (created false, 200). A new call gets its canonical source and deal link as feed calls do.',
    authScopes: { scope: 'calls:write' },
    args: {
      dealer_id: t.arg.id({ description: 'The rooftop the call came in to.' }),
      provider: t.arg.string({ description: 'The call-tracking system; default the source the caller writes as.' }),
      external_id: t.arg.string({ description: "The provider's id of the call (required)." }),
      started_at: t.arg({ type: 'DateTime', description: 'When the call began (required).' }),
      duration_seconds: t.arg.int({ description: 'Seconds, 0-86400 (required).' }),
      direction: t.arg({ type: CallDirectionEnum, description: 'Default inbound.' }),
      status: t.arg({ type: CallStatusEnum, description: 'Default answered when it lasted, else missed.' }),
      caller_number: t.arg.string(),
      tracking_number: t.arg.string(),
      raw_source: t.arg.string({ description: 'The source as the provider names it ("Google Ads").' }),
      campaign: t.arg.string(),
      first_time_caller: t.arg.boolean(),
      recording_url: t.arg.string(),
      department: t.arg.string(),
    },
    resolve: (_app, args, context) => createCall(context, { ...args, dealer_id: args.dealer_id?.toString() }),
  }),
  upsertVehicle: t.field({
    ...inventoryOperation('PUT /inventory/:vin', 'Create or update a vehicle', {
      status: 201,
      createdFlag: 'created',
      responseDescription: 'The vehicle, new to inventory.',
    }),
    type: UpsertVehicleResult,
    description:
      "The caller's view of a vehicle, as its own source (api_<key name>): the body replaces what this source said before, then the vehicle is merged with the rooftop's other sources under its field priorities, with provenance and history, as a feed's rows are. year, make and model are required, and condition for a vehicle not in inventory yet.",
    authScopes: { scope: 'inventory:write' },
    args: {
      vin: t.arg.string({ required: true }),
      dealer_id: t.arg.id({ description: 'The rooftop the vehicle is at.' }),
      stock_number: t.arg.string(),
      year: t.arg.int(),
      make: t.arg.string(),
      model: t.arg.string(),
      trim: t.arg.string(),
      body_style: t.arg.string(),
      condition: t.arg({ type: VehicleCondition }),
      mileage: t.arg.int(),
      exterior_color: t.arg.string(),
      interior_color: t.arg.string(),
      msrp: t.arg({ type: 'Money' }),
      price: t.arg({ type: 'Money' }),
      internet_price: t.arg({ type: 'Money' }),
      status: t.arg({ type: VehicleStatus, description: 'Not presumed_sold, which the platform sets.' }),
      date_in_stock: t.arg({ type: 'Date' }),
      photos: t.arg.stringList({ description: 'Up to 100 http or https addresses.' }),
    },
    resolve: (app, args, context) =>
      upsertVehicle(context, app.database.pool, { ...args, dealer_id: args.dealer_id?.toString() }),
  }),
}));
