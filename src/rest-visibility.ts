/** Marks a field as GraphQL-only: the REST API (SOFA) does not select it. */
export const GRAPHQL_ONLY = { extensions: { restHidden: true } } as const;
