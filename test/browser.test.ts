import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';

/**
 * GraphiQL and the API reference work in a real browser with no internet: every request to
 * another host is refused and recorded, and the test asserts there were none. A page that needed a
 * CDN would stay blank. Needs Chromium (Debian's `chromium` package, or CHROMIUM_PATH).
 */
const BROWSER_CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
const executablePath = BROWSER_CANDIDATES.find((candidate): candidate is string =>
  Boolean(candidate && existsSync(candidate)),
);
if (!executablePath)
  console.log('skipped: browser tests need Chromium (apt-get install chromium, or set CHROMIUM_PATH)');

// Nothing in the background may reach out either (updates, sync, safe browsing).
const BROWSER_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const SCREENSHOTS = path.resolve('test-results', 'browser');
// GraphiQL is a 9 MB page: parsing it takes a few seconds on a busy two-core machine.
const PAGE_TEST_TIMEOUT = 120_000;

let app: TestApp;
let group: SeededGroup;
let token: string;
/** The rooftop both pages must show, proving the token was sent and the answer drawn. */
let dealerName: string;

beforeAll(async () => {
  app = await startTestApp();
  group = await seedGroup(app.database.prisma, { dealers: 1 });
  token = await group.login(app.client);
  dealerName = (await app.database.prisma.dealer.findUniqueOrThrow({ where: { id: group.dealerIds[0]! } })).name;
});
afterAll(async () => {
  await app?.stop();
});

describe("the pages' assets come from this server", () => {
  /** The same-origin script, style and icon URLs a page names. */
  const assetUrls = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);

  it('the reference page names only its own assets, served with their type and a year of caching', async () => {
    const page = await app.client.request('GET', '/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'self';.*connect-src 'self'.*frame-ancestors 'none'$/,
    );
    const urls = assetUrls(String(page.body));
    expect(urls.map((url) => url.split('/').pop()).sort()).toEqual([
      'favicon-32x32.png',
      'reference.js',
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ]);
    const types: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      png: 'image/png',
    };
    for (const url of urls) {
      expect(url).toMatch(/^\/api\/v1\/docs\/assets\/[0-9a-f]{16}\/[\w.-]+$/);
      const asset = await fetch(`${app.url}${url}`);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type')).toBe(types[url.split('.').pop()!]);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const initializer = await (await fetch(`${app.url}${urls.find((url) => url.endsWith('/reference.js'))}`)).text();
    expect(initializer).toContain('"url":"/api/v1/openapi.json"');
    expect(initializer).toContain('"validatorUrl":null');
  });

  it('answers 404 for files it does not serve and for an outdated hash', async () => {
    const page = String((await app.client.request('GET', '/api/v1/docs')).body);
    const bundle = assetUrls(page).find((url) => url.endsWith('/swagger-ui-bundle.js'))!;
    expect((await app.client.request('GET', bundle.replace(/[0-9a-f]{16}/, '0000000000000000'))).status).toBe(404);
    expect((await app.client.request('GET', bundle.replace('swagger-ui-bundle.js', 'package.json'))).status).toBe(404);
    expect(
      (await app.client.request('GET', bundle.replace('swagger-ui-bundle.js', 'swagger-ui-bundle.js.map'))).status,
    ).toBe(404);
  });

  it('GraphiQL is one page with its scripts inlined, naming no other host', async () => {
    const page = await app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('YogaGraphiQL.renderYogaGraphiQL');
    expect(String(page.body)).not.toMatch(/<(?:script|link)[^>]+(?:src|href)="https?:/);
  });
});

describe.skipIf(!executablePath)('GraphiQL and the API reference in a browser, offline', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let outsideRequests: string[];
  let pageErrors: string[];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath, args: BROWSER_ARGS, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    outsideRequests = [];
    pageErrors = [];
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    // As on a machine with no internet: only the server under test answers.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === app.url) return route.continue();
      outsideRequests.push(url);
      return route.abort('internetdisconnected');
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // The reference page's Content-Security-Policy must not block anything the page needs.
    page.on('console', (message) => {
      if (message.type() === 'error' && /content security policy/i.test(message.text()))
        pageErrors.push(message.text());
    });
  });
  afterEach(async () => {
    await context?.close();
  });

  /** Replaces the text of a GraphiQL editor (Monaco) as if pasted, so no bracket is auto-closed twice. */
  async function replaceEditorText(editor: ReturnType<Page['locator']>, text: string): Promise<void> {
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  }

  it(
    'GraphiQL runs a query with an Authorization header from the headers editor',
    async () => {
      await page.goto(`${app.url}/graphql`);
      const queryEditor = page.locator('.graphiql-query-editor .monaco-editor').first();
      await queryEditor.waitFor({ timeout: 30_000 });

      await page.getByRole('button', { name: 'Headers', exact: true }).click();
      const headersEditor = page
        .getByRole('region', { name: 'Headers' })
        .locator('.graphiql-editor:not(.hidden) .monaco-editor');
      await replaceEditorText(headersEditor, JSON.stringify({ Authorization: `Bearer ${token}` }));
      await replaceEditorText(queryEditor, '{ dealers(limit: 5) { dealers { name } pagination { total } } }');
      const answered = page.waitForResponse(
        (response) =>
          response.url().startsWith(`${app.url}/graphql`) &&
          response.request().method() === 'POST' &&
          /dealers\(limit:\s*5\)/.test(response.request().postData() ?? ''),
      );
      await page.locator('.graphiql-execute-button').click();
      expect((await answered).status()).toBe(200);

      const result = page.locator('.graphiql-response');
      // Monaco draws spaces as non-breaking spaces.
      await expect
        .poll(async () => (await result.textContent())?.replace(/\s+/g, ' '), { timeout: 15_000 })
        .toContain(dealerName);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'graphiql.png') });
      expect(outsideRequests).toEqual([]);
      expect(pageErrors).toEqual([]);
    },
    PAGE_TEST_TIMEOUT,
  );

  it(
    'the reference page sends a request with the bearer token through "try it"',
    async () => {
      await page.goto(`${app.url}/api/v1/docs`);
      await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 30_000 });

      await page.locator('.swagger-ui .btn.authorize').first().click();
      await page.locator('.swagger-ui .modal-ux input').first().fill(token);
      await page.locator('.swagger-ui .modal-ux .auth-btn-wrapper .authorize').click();
      await page.locator('.swagger-ui .modal-ux .btn-done').click();

      const operation = page
        .locator('.swagger-ui .opblock-get')
        .filter({ has: page.locator('.opblock-summary-path[data-path="/dealers"]') });
      await operation.locator('.opblock-summary').click();
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/v1/dealers');
      await operation.locator('.btn.execute').click();
      const response = await answered;
      expect(response.status()).toBe(200);
      expect(await response.request().headerValue('authorization')).toBe(`Bearer ${token}`);

      const shown = operation.locator('.live-responses-table');
      await expect.poll(() => shown.textContent(), { timeout: 15_000 }).toContain(dealerName);
      await expect
        .poll(() => operation.locator('.live-responses-table .response .response-col_status').first().textContent())
        .toContain('200');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'api-reference.png'), fullPage: false });
      expect(outsideRequests).toEqual([]);
      expect(pageErrors).toEqual([]);
    },
    PAGE_TEST_TIMEOUT,
  );
});
