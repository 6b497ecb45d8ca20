/**
 * Example requests and answers for the REST operations, keyed by operation id. They
 * are real answers from the demo data; the lint test checks each against its schema, so they cannot drift.
 */

const apiKey = {
  id: '6262a5cd-ab86-455c-912f-876dc776fe0e',
  name: 'Acme Ads inventory sync',
  scopes: ['inventory:read', 'dealers:read'],
  rateLimitPerHour: 1000,
  allowedIps: [],
  maskedKey: 'svc_live_…qFcI',
  lastUsedAt: null,
  createdAt: '2026-11-22T21:13:48.180Z',
  ageDays: 0,
  rotationDue: false,
  status: 'active',
  revokedAt: null,
  rotatedFromId: null,
  dealerGroupIds: ['b168616f-26c1-42cb-a815-39c5c943eded'],
  createdById: '95aa775f-ae30-4d0d-a9bd-3e308130ed73',
  partnerId: null,
};

export const OPENAPI_EXAMPLES: Record<string, { request?: unknown; response?: unknown }> = {
  login: {
    request: { email: 'admin@demo.dealer', password: 'demo-admin-password' },
    response: {
      token:
        'eyJhbGciOiJSUzI1NiIsImtpZCI6IjcyUnRMcTVGZ0V5VGdwc1dTYTdBRkw4NGo4SlhXcEVLZl9hRzNMRUJtZ3MiLCJ0eXAiOiJKV1QifQ.eyJzdWIiOiI5NWFhNzc1Zi1hZTMwLTRkMGQtYTliZC0zZTMwODEzMGVkNzMifQ.c2lnbmF0dXJl',
      token_type: 'Bearer',
      expires_in: 900,
      expires_at: '2026-11-22T21:28:43.000Z',
      refresh_token: 'rt_OFqXW_aV3nq6hN0w2cYHk1o9rJ4tE8mZ',
      refresh_expires_at: '2026-12-22T21:13:43.000Z',
      password_change_required: false,
      user: {
        id: '95aa775f-ae30-4d0d-a9bd-3e308130ed73',
        email: 'admin@demo.dealer',
        name: 'Administrator',
        role: 'admin',
        last_login_at: '2026-11-22T21:13:43.498Z',
        created_at: '2026-11-22T21:08:15.241Z',
      },
    },
  },
  inventory: {
    response: {
      vehicles: [
        {
          id: '0f01e9fc-16aa-4949-8d95-2e42ed4de958',
          vin: '2T3C5HNC2TF100570',
          stock_number: 'N24110',
          year: 2026,
          make: 'Toyota',
          model: 'Corolla',
          trim: 'LE',
          body_style: 'Sedan',
          condition: 'new',
          mileage: 8,
          exterior_color: 'Blueprint',
          interior_color: 'Black',
          msrp: '45500.00',
          price: '43995.00',
          internet_price: null,
          status: 'available',
          days_on_lot: 40,
          date_in_stock: '2026-10-13',
          sold_at: null,
          photos: ['https://img.example/2T3C5HNC2TF100570/1.jpg', 'https://img.example/2T3C5HNC2TF100570/2.jpg'],
          dealer_id: '9b03c836-5485-4c90-b07d-e445810fc8bd',
          created_at: '2026-11-22T21:08:31.040Z',
          updated_at: '2026-11-22T21:08:31.040Z',
          dealer: {
            id: '9b03c836-5485-4c90-b07d-e445810fc8bd',
            dealer_group_id: 'b168616f-26c1-42cb-a815-39c5c943eded',
            name: 'Summit Toyota North',
            code: 'STN',
            street: '6944 Colfax Ave',
            city: 'Denver',
            state: 'CO',
            postal_code: '80221',
            phone: '+13035550101',
            website: 'https://www.summittoyotanorth.example',
            time_zone: 'America/Denver',
            franchises: [],
            external_ids: {},
            created_at: '2026-11-22T21:08:08.006Z',
            updated_at: '2026-11-22T21:08:08.006Z',
            archived_at: null,
          },
        },
      ],
      pagination: {
        total: 602,
        limit: 1,
        offset: 0,
        next_cursor:
          'eyJ2IjoxLCJzIjoiLXVwZGF0ZWRfYXQiLCJrIjpbIjIwMjYtMTEtMjJUMjE6MDg6MzEuMDQwMDAwWiJdLCJpIjoiMGYwMWU5ZmMtMTZhYS00OTQ5LThkOTUtMmU0MmVkNGRlOTU4IiwidCI6IjIwMjYtMTEtMjJUMjE6MzA6MDAuMDAwWiJ9',
      },
    },
  },
  createApiKey: {
    request: { name: 'Acme Ads inventory sync', scopes: ['inventory:read', 'dealers:read'], rateLimitPerHour: 1000 },
    response: { key: 'svc_live_ByPtcujPaTAt-v3qVrhBC71FNrkDKeuQnbpq3U2qFcI', apiKey },
  },
  apiKeys: {
    response: {
      apiKeys: [{ ...apiKey, lastUsedAt: '2026-11-22T21:20:02.000Z' }],
      pagination: { total: 1, limit: 50, offset: 0 },
    },
  },
  revokeApiKey: {
    response: {
      ...apiKey,
      lastUsedAt: '2026-11-22T21:20:02.000Z',
      status: 'revoked',
      revokedAt: '2026-11-22T21:40:11.000Z',
    },
  },
};
