/**
 * Applications (`/api/applications[/:id]`, by id or uid) and their portal
 * access (`/api/applications/:id/portal-access`): one registration per
 * operation (typed.ts). The consumer API the tokens open is src/http/portal.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ApplicationService } from '../applications/service.js';
import type { PortalTokens } from '../portal/tokens.js';
import { applicationParams, createApplicationBody, portalAccessBody, updateApplicationBody } from '../schema/applications.js';
import { Type } from '../schema/kit.js';
import { LINK_HEADER, originOf, pageOf, pageQuerySchema, readPage } from './common.js';
import { ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, ref } from './schemas.js';
import { typed, type TypedApp } from './typed.js';
import { applicationView, portalAccessView } from './views/applications.js';

export interface ApplicationRouteDeps {
  applications: ApplicationService;
  portalTokens: PortalTokens;
}

const tags = ['applications'];

function createApplicationRoute(app: TypedApp, { applications }: ApplicationRouteDeps): void {
  app.post(
    '/api/applications',
    {
      schema: {
        tags,
        operationId: 'createApplication',
        summary: 'Create an application (one per customer): its webhooks receive only the events published to it',
        body: createApplicationBody,
        response: { 201: { description: 'The application', ...ref('Application') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createApplication(request, reply) {
      return reply.code(201).send(applicationView(await applications.create(request.body)));
    },
  );
}

function listApplicationsRoute(app: TypedApp, { applications }: ApplicationRouteDeps): void {
  app.get(
    '/api/applications',
    {
      schema: {
        tags,
        operationId: 'listApplications',
        summary: 'List applications, oldest first',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of applications', headers: LINK_HEADER, ...listOf('Application') }, ...errors() },
      },
    },
    async function listApplications(request, reply) {
      const page = readPage(request.query);
      return pageOf(await applications.list(page), page, request, reply, (a) => a.id).map(applicationView);
    },
  );
}

function getApplicationRoute(app: TypedApp, { applications }: ApplicationRouteDeps): void {
  app.get(
    '/api/applications/:id',
    {
      schema: {
        tags,
        operationId: 'getApplication',
        summary: 'Get an application by id or uid',
        params: applicationParams,
        response: { 200: { description: 'The application', ...ref('Application') }, ...ERRORS_BY_ID },
      },
    },
    async function getApplication(request) {
      return applicationView(await applications.resolve(request.params.id));
    },
  );
}

function updateApplicationRoute(app: TypedApp, { applications }: ApplicationRouteDeps): void {
  app.patch(
    '/api/applications/:id',
    {
      schema: {
        tags,
        operationId: 'updateApplication',
        summary: 'Update an application (partial; a limit set to null is lifted)',
        params: applicationParams,
        body: updateApplicationBody,
        response: { 200: { description: 'The application as updated', ...ref('Application') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateApplication(request) {
      return applicationView(await applications.update(request.params.id, request.body ?? {}));
    },
  );
}

function deleteApplicationRoute(app: TypedApp, { applications }: ApplicationRouteDeps): void {
  app.delete(
    '/api/applications/:id',
    {
      schema: {
        tags,
        operationId: 'deleteApplication',
        summary: 'Delete an application with its webhooks, their deliveries and attempts, and its portal tokens',
        params: applicationParams,
        response: {
          200: { description: 'Deleted', type: 'object', required: ['deleted', 'id'], properties: { deleted: { type: 'boolean' }, id: { type: 'string' } } },
          ...ERRORS_BY_ID,
        },
      },
    },
    async function deleteApplication(request) {
      const app = await applications.resolve(request.params.id);
      await applications.delete(app.id);
      return { deleted: true, id: app.id };
    },
  );
}

function createPortalAccessRoute(app: TypedApp, { applications, portalTokens }: ApplicationRouteDeps): void {
  app.post(
    '/api/applications/:id/portal-access',
    {
      schema: {
        tags,
        operationId: 'createPortalAccess',
        summary:
          "A token (shown once) and a portal URL for the application's customer: it grants the consumer API on this application's resources only, expires unless refreshed, and can be revoked",
        params: applicationParams,
        body: portalAccessBody,
        response: { 201: { description: 'The token and the URL', ...ref('PortalAccess') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function createPortalAccess(request, reply) {
      const application = await applications.resolve(request.params.id);
      const { token, session } = await portalTokens.issue(application, request.body?.ttl_seconds);
      // Never cached: the answer holds a secret.
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(portalAccessView(token, session, originOf(request)));
    },
  );
}

function revokePortalAccessRoute(app: TypedApp, { applications, portalTokens }: ApplicationRouteDeps): void {
  app.delete(
    '/api/applications/:id/portal-access',
    {
      schema: {
        tags,
        operationId: 'revokePortalAccess',
        summary: "Revoke the application's portal tokens: every live one, or only the one in the body's `token`",
        params: applicationParams,
        body: Type.Object(
          { token: Type.Optional(Type.String({ maxLength: 200, description: 'Only this token; left out: every live one' })) },
          { additionalProperties: false },
        ),
        response: {
          200: { description: 'How many were revoked', type: 'object', required: ['revoked'], properties: { revoked: { type: 'integer' } } },
          ...ERRORS_BY_ID_WITH_BODY,
        },
      },
    },
    async function revokePortalAccess(request) {
      const application = await applications.resolve(request.params.id);
      return { revoked: await portalTokens.revoke(application.id, request.body?.token) };
    },
  );
}

/** In the order the document lists them. */
const OPERATIONS = [
  createApplicationRoute,
  listApplicationsRoute,
  getApplicationRoute,
  updateApplicationRoute,
  deleteApplicationRoute,
  createPortalAccessRoute,
  revokePortalAccessRoute,
];

export function registerApplicationRoutes(app: FastifyInstance, deps: ApplicationRouteDeps): void {
  const api = typed(app);
  for (const register of OPERATIONS) register(api, deps);
}
