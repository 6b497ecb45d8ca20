import type { GraphiQLOptions, GraphiQLRenderer } from 'graphql-yoga';

/**
 * GraphiQL with its scripts, styles and editor workers inlined from node_modules, so it works on
 * machines without internet access (Yoga's default page loads them from a CDN).
 */

/** Yoga's GraphiQL options for analysts: the headers editor is on, for `Authorization: Bearer …`. */
export function graphiqlOptions(title: string): GraphiQLOptions {
  return {
    title,
    isHeadersEditorEnabled: true,
    // Tokens typed into the headers editor stay in the tab, not in the browser's storage.
    shouldPersistHeaders: false,
  };
}

/**
 * A renderer for Yoga's `renderGraphiQL` option. The page is about 9 MB of inlined assets: the
 * module is loaded on the first request (servers with GraphiQL off never load it), and each page
 * is built once, since the options never change while the server runs.
 */
export function offlineGraphiQL(): GraphiQLRenderer {
  const pages = new Map<string, Promise<string>>();
  return (options) => {
    const key = JSON.stringify(options);
    let page = pages.get(key);
    if (!page) {
      page = import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => renderGraphiQL(options));
      pages.set(key, page);
    }
    return page;
  };
}
