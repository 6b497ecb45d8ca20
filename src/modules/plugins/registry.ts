/** The built-in plugins: what each connects to, how data arrives, and the configuration it needs. */

export const PLUGIN_CATEGORIES = ['inventory', 'crm', 'dms', 'call_tracking', 'advertising', 'analytics'] as const;
export type PluginCategory = (typeof PLUGIN_CATEGORIES)[number];

export interface ConfigField {
  name: string;
  type: 'string' | 'integer' | 'boolean' | 'url' | 'enum' | 'object';
  required: boolean;
  description: string;
  options?: readonly string[];
  default?: unknown;
  min?: number;
  max?: number;
  /** Secrets go to PUT /integrations/:id/credentials, never into the config. */
  secret?: boolean;
}

export interface PluginDefinition {
  key: string;
  name: string;
  category: PluginCategory;
  description: string;
  delivery: 'sftp' | 'http_pull';
  formats: readonly string[];
  capabilities: readonly string[];
  configSchema: readonly ConfigField[];
  /** What its rows become. */
  target: 'vehicles' | 'calls' | 'leads' | 'sales';
  /** The source name its records carry in multi-source merges, unless the integration names another. */
  defaultSource: string;
}

const csvFields: ConfigField[] = [
  {
    name: 'delimiter',
    type: 'enum',
    required: false,
    options: ['auto', 'comma', 'tab', 'pipe'],
    default: 'auto',
    description: 'Column separator; auto detects comma, tab or pipe from the header row.',
  },
  {
    name: 'encoding',
    type: 'enum',
    required: false,
    options: ['utf-8', 'latin1'],
    default: 'utf-8',
    description: 'Text encoding of the files.',
  },
  {
    name: 'file_pattern',
    type: 'string',
    required: false,
    default: '*.csv,*.txt,*.tsv,*.psv',
    description: 'Which uploaded files to read: globs, comma-separated, e.g. "inventory_*.csv".',
  },
  {
    name: 'expected_cadence_hours',
    type: 'integer',
    required: false,
    default: 24,
    min: 1,
    max: 720,
    description: 'How often a file should arrive; later than that, the feed is lagging.',
  },
];

export const PLUGINS: readonly PluginDefinition[] = [
  {
    key: 'homenet_inventory_csv',
    target: 'vehicles',
    defaultSource: 'homenet',
    name: 'HomeNet inventory export',
    category: 'inventory',
    delivery: 'sftp',
    formats: ['csv'],
    description:
      'Daily inventory files in the HomeNet column dialect (VIN, Stock, Type, Year, Make, Model, Trim, Miles, SellingPrice, MSRP, ImageList…).',
    capabilities: ['inventory', 'photos', 'pricing'],
    configSchema: csvFields,
  },
  {
    key: 'vauto_inventory_csv',
    target: 'vehicles',
    defaultSource: 'vauto',
    name: 'vAuto inventory export',
    category: 'inventory',
    delivery: 'sftp',
    formats: ['csv'],
    description:
      'Inventory files in the vAuto dialect (Vin, Stock #, New/Used, Odometer, Price, Internet Price, Days In Inventory…).',
    capabilities: ['inventory', 'pricing', 'days_on_lot'],
    configSchema: csvFields,
  },
  {
    key: 'custom_inventory_csv',
    target: 'vehicles',
    defaultSource: 'inventory_feed',
    name: 'Custom inventory CSV',
    category: 'inventory',
    delivery: 'sftp',
    formats: ['csv', 'tsv', 'psv'],
    description: 'Any inventory CSV with a header row; columns are mapped per integration (see /file-column-mappings).',
    capabilities: ['inventory', 'column_mapping'],
    configSchema: [
      ...csvFields,
      {
        name: 'header_row',
        type: 'integer',
        required: false,
        default: 1,
        min: 1,
        max: 20,
        description: 'Line number of the header row.',
      },
    ],
  },
  {
    key: 'inventory_json_api',
    target: 'vehicles',
    defaultSource: 'website',
    name: 'Inventory JSON API',
    category: 'inventory',
    delivery: 'http_pull',
    formats: ['json'],
    description: 'Pulls inventory from an HTTP endpoint answering JSON, on a schedule.',
    capabilities: ['inventory', 'pricing', 'photos', 'scheduled_pull'],
    configSchema: [
      { name: 'url', type: 'url', required: true, description: 'The endpoint to GET, https only.' },
      {
        name: 'records_path',
        type: 'string',
        required: false,
        default: 'vehicles',
        description: 'Where the array of vehicles sits in the response, dot-separated (e.g. "data.items").',
      },
      {
        name: 'page_size',
        type: 'integer',
        required: false,
        default: 100,
        min: 1,
        max: 1000,
        description: 'Records per request when the API pages.',
      },
      {
        name: 'schedule_minutes',
        type: 'integer',
        required: false,
        default: 60,
        min: 5,
        max: 1440,
        description: 'How often to pull.',
      },
      {
        name: 'api_key',
        type: 'string',
        required: false,
        secret: true,
        description: 'Sent as a bearer token; store it with PUT /integrations/:id/credentials.',
      },
    ],
  },
  {
    key: 'adf_xml_leads',
    target: 'leads',
    defaultSource: 'adf',
    name: 'ADF/XML lead files',
    category: 'crm',
    delivery: 'sftp',
    formats: ['xml'],
    description: "Leads in the industry's ADF/XML format (one <adf> document per file, one or more <prospect>s).",
    capabilities: ['leads', 'customers', 'vehicle_of_interest'],
    configSchema: [
      {
        name: 'file_pattern',
        type: 'string',
        required: false,
        default: '*.xml',
        description: 'Which uploaded files to read (glob).',
      },
      {
        name: 'default_lead_type',
        type: 'enum',
        required: false,
        options: ['new', 'used', 'service', 'finance', 'trade_in'],
        default: 'used',
        description: 'Type for prospects whose vehicle has no status.',
      },
    ],
  },
  {
    key: 'call_tracking_csv',
    target: 'calls',
    defaultSource: 'call_tracking',
    name: 'Call-tracking CSV export',
    category: 'call_tracking',
    delivery: 'sftp',
    formats: ['csv'],
    description: 'Call exports from call-tracking providers (CallRail and CallTrackingMetrics column dialects).',
    capabilities: ['calls', 'raw_sources', 'recordings'],
    configSchema: [
      ...csvFields,
      {
        name: 'provider',
        type: 'enum',
        required: true,
        options: ['callrail', 'ctm'],
        description: "Which provider's columns the files use.",
      },
    ],
  },
  {
    key: 'dms_sales_csv',
    target: 'sales',
    defaultSource: 'dms',
    name: 'DMS deal export',
    category: 'dms',
    delivery: 'sftp',
    formats: ['csv'],
    description:
      'Deals exported from a DMS (CDK-style columns: Deal #, Sale Date, Salesperson, Deal Type, VIN, Sale Price, Front Gross, Back Gross…).',
    capabilities: ['sales', 'gross', 'trade_ins'],
    configSchema: csvFields,
  },
];

export const pluginByKey = (key: string) => PLUGINS.find((plugin) => plugin.key === key);

/** The kind of records a plugin's feed carries (vehicles when the plugin is unknown). */
export const pluginTarget = (key: string) => pluginByKey(key)?.target ?? 'vehicles';

export interface FieldError {
  field: string;
  message: string;
}

/** Checks a configuration against a plugin's schema, field by field; unknown fields are errors too. */
export function validateConfig(
  plugin: PluginDefinition,
  config: unknown,
  options: { allowInsecureHttp?: boolean } = {},
): FieldError[] {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    return [{ field: 'config', message: 'must be an object' }];
  const values = config as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const field of plugin.configSchema) {
    const value = values[field.name];
    if (value === undefined || value === null || value === '') {
      if (field.required) errors.push({ field: field.name, message: 'is required' });
      continue;
    }
    if (field.secret) {
      errors.push({
        field: field.name,
        message: 'is a secret: store it with PUT /integrations/:id/credentials, not in the config',
      });
      continue;
    }
    switch (field.type) {
      case 'string':
        if (typeof value !== 'string') errors.push({ field: field.name, message: 'must be a string' });
        else if (value.length > 500) errors.push({ field: field.name, message: 'must be at most 500 characters' });
        break;
      case 'integer':
        if (!Number.isInteger(value)) errors.push({ field: field.name, message: 'must be a whole number' });
        else if (
          (field.min !== undefined && (value as number) < field.min) ||
          (field.max !== undefined && (value as number) > field.max)
        ) {
          errors.push({ field: field.name, message: `must be from ${field.min} to ${field.max}` });
        }
        break;
      case 'boolean':
        if (typeof value !== 'boolean') errors.push({ field: field.name, message: 'must be true or false' });
        break;
      case 'enum':
        if (!field.options?.includes(value as string))
          errors.push({ field: field.name, message: `must be one of ${field.options?.join(', ')}` });
        break;
      case 'url': {
        let url: URL | null = null;
        try {
          url = typeof value === 'string' ? new URL(value) : null;
        } catch {
          /* reported below */
        }
        if (!url) errors.push({ field: field.name, message: 'must be an absolute URL' });
        else if (url.protocol !== 'https:' && !(options.allowInsecureHttp && url.protocol === 'http:'))
          errors.push({ field: field.name, message: 'must use https' });
        else if (url.username || url.password)
          errors.push({
            field: field.name,
            message: 'must not carry credentials; store them with PUT /integrations/:id/credentials',
          });
        break;
      }
      case 'object':
        if (typeof value !== 'object' || Array.isArray(value))
          errors.push({ field: field.name, message: 'must be an object' });
        break;
    }
  }
  for (const name of Object.keys(values)) {
    if (!plugin.configSchema.some((field) => field.name === name))
      errors.push({ field: name, message: `is not a setting of ${plugin.key}` });
  }
  return errors;
}
