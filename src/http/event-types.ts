/**
 * The event-type catalogue: /api/event-types[/:name[/violations]] and
 * /api/event-type-imports; one registration per operation (typed.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { EventCatalogue } from '../events/catalogue.js';
import { VIOLATIONS_KEPT } from '../events/validation.js';
import {
  createEventTypeBody,
  eventTypeParams,
  importEventTypesBody,
  updateEventTypeBody,
  violationsQuery,
} from '../schema/event-types.js';
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from './common.js';
import { ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, ref } from './schemas.js';
import { typed, type TypedApp } from './typed.js';
import { eventTypeView, eventViolationView } from './views/event-types.js';

export interface EventTypeRouteDeps {
  catalogue: EventCatalogue;
}

const tags = ['event-types'];

function createEventTypeRoute(app: TypedApp, { catalogue }: EventTypeRouteDeps): void {
  app.post(
    '/api/event-types',
    {
      schema: {
        tags,
        operationId: 'createEventType',
        summary: 'Catalogue an event type: its description, a JSON Schema of its data (version 1), examples, and a validation mode (default off)',
        body: createEventTypeBody,
        response: { 201: { description: 'The event type', ...ref('EventType') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createEventType(request, reply) {
      return reply.code(201).send(eventTypeView(await catalogue.create(request.body)));
    },
  );
}

function listEventTypesRoute(app: TypedApp, { catalogue }: EventTypeRouteDeps): void {
  app.get(
    '/api/event-types',
    {
      schema: {
        tags,
        operationId: 'listEventTypes',
        summary: 'List the catalogued event types, by name',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of event types', headers: LINK_HEADER, ...listOf('EventType') }, ...errors() },
      },
    },
    async function listEventTypes(request, reply) {
      const page = readPage(request.query);
      return pageOf(await catalogue.list(page), page, request, reply, (t) => t.name).map(eventTypeView);
    },
  );
}

function getEventTypeRoute(app: TypedApp, { catalogue }: EventTypeRouteDeps): void {
  app.get(
    '/api/event-types/:name',
    {
      schema: {
        tags,
        operationId: 'getEventType',
        summary: 'Get an event type with every schema version and its examples',
        params: eventTypeParams,
        response: { 200: { description: 'The event type', ...ref('EventType') }, ...ERRORS_BY_ID },
      },
    },
    async function getEventType(request) {
      return eventTypeView(await catalogue.get(request.params.name));
    },
  );
}

function updateEventTypeRoute(app: TypedApp, { catalogue }: EventTypeRouteDeps): void {
  app.put(
    '/api/event-types/:name',
    {
      schema: {
        tags,
        operationId: 'updateEventType',
        summary:
          'Update an event type (partial). A schema other than the latest adds a version (with the examples given); examples alone replace the latest version\'s; applies at once to every process',
        params: eventTypeParams,
        body: updateEventTypeBody,
        response: { 200: { description: 'The event type as updated', ...ref('EventType') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateEventType(request) {
      return eventTypeView(await catalogue.update(request.params.name, request.body ?? {}));
    },
  );
}

function deleteEventTypeRoute(app: TypedApp, { catalogue }: EventTypeRouteDeps): void {
  app.delete(
    '/api/event-types/:name',
    {
      schema: {
        tags,
        operationId: 'deleteEventType',
        summary: 'Delete an event type with its versions and violations: its events publish unchecked again',
        params: eventTypeParams,
        response: { 200: { description: 'Deleted', ...ref('Deleted') }, ...ERRORS_BY_ID },
      },
    },
    async function deleteEventType(request) {
      await catalogue.delete(request.params.name);
      return { deleted: true, id: request.params.name };
    },
  );
}

function listViolationsRoute(app: TypedApp, { catalogue }: EventTypeRouteDeps): void {
  app.get(
    '/api/event-types/:name/violations',
    {
      schema: {
        tags,
        operationId: 'listEventViolations',
        summary: `The latest publishes whose data failed the type's schema, newest first (the newest ${VIOLATIONS_KEPT} are kept)`,
        params: eventTypeParams,
        querystring: violationsQuery,
        response: { 200: { description: 'Violations', ...listOf('EventViolation') }, ...ERRORS_BY_ID },
      },
    },
    async function listEventViolations(request) {
      return (await catalogue.violations(request.params.name, request.query.limit ?? VIOLATIONS_KEPT)).map(eventViolationView);
    },
  );
}

function importEventTypesRoute(app: TypedApp, { catalogue }: EventTypeRouteDeps): void {
  app.post(
    '/api/event-type-imports',
    {
      schema: {
        tags,
        operationId: 'importEventTypes',
        summary: "Create or update one event type per entry of an OpenAPI document's webhooks (the post operation's JSON request body schema and examples)",
        body: importEventTypesBody,
        response: { 200: { description: 'What the import did', ...ref('EventTypeImport') }, ...ERRORS_WITH_BODY },
      },
    },
    async function importEventTypes(request) {
      return catalogue.import(request.body.document, request.body.mode);
    },
  );
}

/** In the order the document lists them. */
const OPERATIONS = [
  createEventTypeRoute,
  listEventTypesRoute,
  getEventTypeRoute,
  updateEventTypeRoute,
  deleteEventTypeRoute,
  listViolationsRoute,
  importEventTypesRoute,
];

export function registerEventTypeRoutes(app: FastifyInstance, deps: EventTypeRouteDeps): void {
  const api = typed(app);
  for (const register of OPERATIONS) register(api, deps);
}
