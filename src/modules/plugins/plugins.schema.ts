import { builder } from '../../builder';
import { itemsLoaded, pageOf } from '../../pages';
import { notFound } from '../../errors';
import { pageArgs } from '../../pagination';
import { oneOf } from '../../validation';
import {
  PLUGIN_CATEGORIES,
  PLUGINS,
  pluginByKey,
  validateConfig,
  type ConfigField,
  type FieldError,
  type PluginDefinition,
} from './registry';
import { choice, listArgs } from '../../schema-args';
import { restOperations } from '../../http/operations';

const operation = restOperations('Plugins');

/** The Plugins section of docs/operations.md: the plugin registry, each plugin's configuration schema, and validation. */

const ConfigFieldRef = builder.objectRef<ConfigField>('PluginConfigField').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    type: t.exposeString('type', { description: 'string, integer, boolean, url, enum or object.' }),
    required: t.exposeBoolean('required'),
    description: t.exposeString('description'),
    options: t.stringList({ nullable: true, resolve: (field) => (field.options ? [...field.options] : null) }),
    default: t.field({ type: 'JSON', nullable: true, resolve: (field) => field.default ?? null }),
    min: t.int({ nullable: true, resolve: (field) => field.min ?? null }),
    max: t.int({ nullable: true, resolve: (field) => field.max ?? null }),
    secret: t.boolean({
      description: 'Stored with PUT /integrations/:id/credentials, never in the config.',
      resolve: (field) => field.secret ?? false,
    }),
  }),
});

const Plugin = builder.objectRef<PluginDefinition>('Plugin').implement({
  fields: (t) => ({
    key: t.exposeString('key'),
    name: t.exposeString('name'),
    category: t.exposeString('category', { description: PLUGIN_CATEGORIES.join(', ') }),
    description: t.exposeString('description'),
    delivery: t.exposeString('delivery', {
      description: 'sftp (files dropped on our SFTP server) or http_pull (we fetch).',
    }),
    formats: t.stringList({ resolve: (plugin) => [...plugin.formats] }),
    capabilities: t.stringList({ resolve: (plugin) => [...plugin.capabilities] }),
    config_schema: t.field({ type: [ConfigFieldRef], resolve: (plugin) => [...plugin.configSchema] }),
  }),
});

const PluginPage = pageOf('PluginPage', 'plugins', itemsLoaded(Plugin));

const FieldErrorRef = builder.objectRef<FieldError>('ConfigFieldError').implement({
  fields: (t) => ({ field: t.exposeString('field'), message: t.exposeString('message') }),
});

const Validation = builder.objectRef<{ plugin: string; errors: FieldError[] }>('PluginConfigValidation').implement({
  fields: (t) => ({
    plugin: t.exposeString('plugin'),
    valid: t.boolean({ resolve: (result) => result.errors.length === 0 }),
    errors: t.field({
      type: [FieldErrorRef],
      description: 'One entry per bad field.',
      resolve: (result) => result.errors,
    }),
  }),
});

const findPlugin = (key: string) => {
  const plugin = pluginByKey(key);
  if (!plugin) throw notFound(`plugin ${key}`);
  return plugin;
};

builder.queryFields((t) => ({
  plugins: t.field({
    ...operation('GET /plugins', 'List plugins'),
    type: PluginPage,
    description: 'Available plugins, by category.',
    authScopes: { scope: 'integrations:read' },
    args: { category: t.arg.string(choice(PLUGIN_CATEGORIES)), ...listArgs(t) },
    resolve: (_root, args) => {
      const { limit, offset } = pageArgs(args);
      const category = args.category ? oneOf('category', args.category, PLUGIN_CATEGORIES) : null;
      const matching = PLUGINS.filter((plugin) => !category || plugin.category === category).sort(
        (a, b) =>
          PLUGIN_CATEGORIES.indexOf(a.category) - PLUGIN_CATEGORIES.indexOf(b.category) || a.name.localeCompare(b.name),
      );
      return { items: matching.slice(offset, offset + limit), total: matching.length, limit, offset };
    },
  }),
  plugin: t.field({
    ...operation('GET /plugins/:key', 'Get a plugin'),
    type: Plugin,
    description: "A plugin's configuration schema and capabilities.",
    authScopes: { scope: 'integrations:read' },
    args: { key: t.arg.string({ required: true }) },
    resolve: (_root, args) => findPlugin(args.key),
  }),
  validatePluginConfig: t.field({
    ...operation('POST /plugins/:key/validate', 'Validate a plugin configuration'),
    type: Validation,
    description: "Check a configuration against the plugin's schema, field by field.",
    authScopes: { scope: 'integrations:read' },
    args: { key: t.arg.string({ required: true }), config: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args) => ({ plugin: args.key, errors: validateConfig(findPlugin(args.key), args.config) }),
  }),
}));
