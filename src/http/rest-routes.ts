/** The catalog's REST paths (relative to /api/v1) for each GraphQL operation. */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tags: string[];
  responseStatus?: number;
  /** False for the few calls that take no credentials. */
  authenticated?: boolean;
}

export const REST_ROUTES: Record<string, RestRoute> = {
  'Mutation.login': { method: 'POST', path: '/auth/login', tags: ['Auth'], authenticated: false },
  'Mutation.refresh': { method: 'POST', path: '/auth/refresh', tags: ['Auth'], authenticated: false },
  'Mutation.logout': { method: 'POST', path: '/auth/logout', tags: ['Auth'] },
  'Query.me': { method: 'GET', path: '/auth/me', tags: ['Auth'] },
  'Query.inventory': { method: 'GET', path: '/inventory', tags: ['Inventory'] },
  'Query.inventoryStats': { method: 'GET', path: '/inventory/stats', tags: ['Inventory'] },
  'Query.inventoryAging': { method: 'GET', path: '/inventory/aging', tags: ['Inventory'] },
  'Query.inventoryFacets': { method: 'GET', path: '/inventory/facets', tags: ['Inventory'] },
  'Query.vehicle': { method: 'GET', path: '/inventory/:vin', tags: ['Inventory'] },
  'Query.vehicleHistory': { method: 'GET', path: '/inventory/:vin/history', tags: ['Inventory'] },
  'Query.apiKeys': { method: 'GET', path: '/api-keys', tags: ['API keys'] },
  'Mutation.createApiKey': { method: 'POST', path: '/api-keys', tags: ['API keys'], responseStatus: 201 },
  'Mutation.revokeApiKey': { method: 'DELETE', path: '/api-keys/:id', tags: ['API keys'] },
  'Mutation.rotateApiKey': { method: 'POST', path: '/api-keys/:id/rotate', tags: ['API keys'], responseStatus: 201 },
  'Query.requestLogs': { method: 'GET', path: '/logs/requests', tags: ['Logs and audit'] },
  'Query.auditEvents': { method: 'GET', path: '/logs/audit', tags: ['Logs and audit'] },
  'Query.dealers': { method: 'GET', path: '/dealers', tags: ['Dealers'] },
  'Mutation.createDealer': { method: 'POST', path: '/dealers', tags: ['Dealers'], responseStatus: 201 },
  'Query.matchDealers': { method: 'POST', path: '/dealers/match', tags: ['Dealers'] },
  'Query.dealer': { method: 'GET', path: '/dealers/:id', tags: ['Dealers'] },
  'Mutation.updateDealer': { method: 'PATCH', path: '/dealers/:id', tags: ['Dealers'] },
  'Mutation.archiveDealer': { method: 'DELETE', path: '/dealers/:id', tags: ['Dealers'] },
  'Query.dealerAliases': { method: 'GET', path: '/dealers/:id/aliases', tags: ['Dealers'] },
  'Mutation.addDealerAlias': { method: 'POST', path: '/dealers/:id/aliases', tags: ['Dealers'], responseStatus: 201 },
  'Mutation.removeDealerAlias': { method: 'DELETE', path: '/dealers/:id/aliases/:aliasId', tags: ['Dealers'] },
  'Query.sources': { method: 'GET', path: '/sources', tags: ['Sources'] },
  'Mutation.createSource': { method: 'POST', path: '/sources', tags: ['Sources'], responseStatus: 201 },
  'Query.sourceMappings': { method: 'GET', path: '/sources/mappings', tags: ['Sources'] },
  'Mutation.createSourceMappings': { method: 'POST', path: '/sources/mappings', tags: ['Sources'], responseStatus: 201 },
  'Mutation.deleteSourceMapping': { method: 'DELETE', path: '/sources/mappings/:id', tags: ['Sources'] },
  'Query.resolveSources': { method: 'POST', path: '/sources/resolve', tags: ['Sources'] },
  'Query.unmappedSources': { method: 'GET', path: '/sources/unmapped', tags: ['Sources'] },
  'Query.source': { method: 'GET', path: '/sources/:id', tags: ['Sources'] },
  'Mutation.updateSource': { method: 'PATCH', path: '/sources/:id', tags: ['Sources'] },
  'Mutation.deleteSource': { method: 'DELETE', path: '/sources/:id', tags: ['Sources'] },
  'Query.health': { method: 'GET', path: '/health', tags: ['Administration'], authenticated: false },
};
