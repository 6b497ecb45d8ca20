import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('gives the embedded quick start development defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000,
      databaseUrl: null,
      seedDemoData: true,
      adminEmail: 'admin@demo.dealer',
    });
  });

  it('requires the first admin in production and refuses a weak password', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', ADMIN_EMAIL: 'a@b.co', ADMIN_PASSWORD: 'password1234' })).toThrow(
      /ADMIN_PASSWORD/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', ADMIN_EMAIL: 'a@b.co', ADMIN_PASSWORD: 'short' })).toThrow(
      /12 characters/,
    );
    expect(() =>
      loadConfig({ NODE_ENV: 'production', ADMIN_EMAIL: 'a@b.co', ADMIN_PASSWORD: 'x'.repeat(1025) }),
    ).toThrow(/ADMIN_PASSWORD must be at most 1024 characters/);
    // The development default is only for development: production holds it to the policy and refuses it.
    expect(loadConfig({}).adminPassword).toBe('demo-admin-password');
    expect(() =>
      loadConfig({ NODE_ENV: 'production', ADMIN_EMAIL: 'a@b.co', ADMIN_PASSWORD: 'demo-admin-password' }),
    ).toThrow(/ADMIN_PASSWORD must not contain "(admin|password)"/);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', ADMIN_EMAIL: 'a@b.co', ADMIN_PASSWORD: 'Fjord-Lantern-7-Quiver' }),
    ).toThrow(/CREDENTIALS_KEYS/);
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig({
      NODE_ENV: 'production',
      ADMIN_EMAIL: 'a@b.co',
      ADMIN_PASSWORD: 'Fjord-Lantern-7-Quiver',
      CREDENTIALS_KEYS: `k2:${key},k1:${key}`,
    });
    expect(config.seedDemoData).toBe(false);
    expect(config.ingestion.credentialKeys.map((entry) => entry.id)).toEqual(['k2', 'k1']);
    expect(() => loadConfig({ CREDENTIALS_KEYS: 'k1:c2hvcnQ=' })).toThrow(/32 bytes/);
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ JWT_JWKS_URL: 'https://idp.example/jwks' })).toThrow(/JWT_ISSUER/);
  });
});
