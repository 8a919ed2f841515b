/**
 * Applications (one per customer) and portal access, request and answer side
 * by side (TypeBox; the views, ../http/views/applications.ts, are typed from these).
 */
import { projectField } from './common.js';
import { Type, anyObject, instant, named, nullableInteger, nullableString, refTo, type Static } from './kit.js';

const nullableNumber = (options: Record<string, unknown> = {}) => Type.Unsafe<number | null>({ type: ['number', 'null'], ...options });

export const ApplicationLimitsSchema = named(
  'ApplicationLimits',
  Type.Object({
    max_endpoints: nullableInteger({ description: 'Webhooks it may own at most (422 application_limit_reached past it); null: no limit' }),
    events_per_second: nullableNumber({
      description: 'Events published to it per second, for the whole cluster (429 application_rate_limited past it); null: no limit',
    }),
    retention_days: nullableInteger({ description: 'Days its deliveries are kept, when shorter than the server\'s retention; null: the server\'s' }),
  }),
);

const ORIGIN = '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$';
const COLOR = '^#[0-9A-Fa-f]{6}$';
const themeModes = ['light', 'dark', 'auto'] as const;

export const PortalSettingsSchema = named(
  'PortalSettings',
  Type.Object({
    allowed_parents: Type.Array(Type.String(), { description: "Origins whose pages may embed the portal in an iframe (its CSP frame-ancestors); empty: none, only Switchyard's own pages" }),
    theme: Type.Object({
      logo_url: nullableString({ description: 'An https image shown in the portal header' }),
      primary_color: nullableString({ description: '`#rrggbb`: buttons, links, focus rings' }),
      mode: Type.Unsafe<(typeof themeModes)[number]>({ type: 'string', enum: [...themeModes], description: "light, dark, or auto (the viewer's system setting)" }),
    }),
  }),
);

export const ApplicationSchema = named(
  'Application',
  Type.Object({
    id: Type.String({ description: '`app_...`' }),
    uid: nullableString({ description: 'Your own id for the customer (unique); usable wherever the id is' }),
    name: Type.String(),
    metadata: anyObject({ description: 'Any JSON object of yours; Switchyard does not read it' }),
    limits: refTo(ApplicationLimitsSchema),
    portal: refTo(PortalSettingsSchema),
    project: projectField(),
    created_at: instant(),
    updated_at: instant(),
  }),
);

export const PortalAccessSchema = named(
  'PortalAccess',
  Type.Object({
    token: Type.String({ description: 'Shown once: send it as `Authorization: Bearer <token>` to `/api/portal/...`; only its hash is stored' }),
    url: Type.String({ description: "The portal's address with the token in the fragment (`#token=`), which browsers never send to a server or in a Referer" }),
    expires_at: instant({ description: 'Refreshed (`POST /api/portal/session/refresh`) while the portal is open, never past max_expires_at' }),
    max_expires_at: instant(),
    application_id: Type.String(),
  }),
);

export const PortalSessionSchema = named(
  'PortalSession',
  Type.Object({
    application_id: Type.String(),
    application_name: Type.String(),
    expires_at: instant(),
    max_expires_at: instant(),
    theme: Type.Object({ logo_url: nullableString(), primary_color: nullableString(), mode: Type.String() }, { description: "The application's portal theme" }),
  }),
);

const limitsInput = Type.Object(
  {
    max_endpoints: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100_000 }), Type.Null()])),
    events_per_second: Type.Optional(Type.Union([Type.Number({ minimum: 0.01, maximum: 100_000 }), Type.Null()])),
    retention_days: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()])),
  },
  { additionalProperties: false, description: 'Fields left out: unchanged (on create: no limit); null: no limit' },
);

const portalInput = Type.Object(
  {
    allowed_parents: Type.Optional(
      Type.Array(Type.String({ maxLength: 300, pattern: ORIGIN, description: 'An origin: scheme, host and port, no path (`https://app.example.com`)' }), { maxItems: 20 }),
    ),
    theme: Type.Optional(
      Type.Object(
        {
          logo_url: Type.Optional(Type.Union([Type.String({ maxLength: 2048, pattern: '^https://' }), Type.Null()])),
          primary_color: Type.Optional(Type.Union([Type.String({ pattern: COLOR }), Type.Null()])),
          mode: Type.Optional(Type.Unsafe<(typeof themeModes)[number]>({ type: 'string', enum: [...themeModes] })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'The consumer portal: who may embed it, how it looks. Fields left out: unchanged' },
);

const uidField = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$', description: 'Your own id for the customer: letters, digits and _ . : -; unique; must not start with app_' });
const nameField = Type.String({ minLength: 1, maxLength: 200 });
const metadataField = anyObject({ description: 'Any JSON object (at most 16 KiB)' });

export const createApplicationBody = Type.Object(
  {
    name: nameField,
    uid: Type.Optional(Type.Union([uidField, Type.Null()])),
    metadata: Type.Optional(metadataField),
    limits: Type.Optional(limitsInput),
    portal: Type.Optional(portalInput),
    project: Type.Optional(projectField()),
  },
  { additionalProperties: false },
);

export const updateApplicationBody = Type.Object(
  {
    name: Type.Optional(nameField),
    uid: Type.Optional(Type.Union([uidField, Type.Null()])),
    metadata: Type.Optional(metadataField),
    limits: Type.Optional(limitsInput),
    portal: Type.Optional(portalInput),
    project: Type.Optional(projectField()),
  },
  { additionalProperties: false, required: [] },
);

export const applicationParams = Type.Object({ id: Type.String({ maxLength: 200, description: 'The id (`app_...`) or your uid' }) });

export const portalAccessBody = Type.Object(
  {
    ttl_seconds: Type.Optional(
      Type.Integer({ minimum: 60, maximum: 86_400, description: "Seconds until the token expires unless refreshed (default the server's SWITCHYARD_PORTAL_TOKEN_TTL, 900)" }),
    ),
  },
  { additionalProperties: false },
);

export type ApplicationInput = Static<typeof createApplicationBody>;
export type ApplicationUpdate = Static<typeof updateApplicationBody>;
export type ApplicationView = Static<typeof ApplicationSchema>;
export type PortalAccessView = Static<typeof PortalAccessSchema>;
export type PortalSessionView = Static<typeof PortalSessionSchema>;
