/**
 * Runs in every test file (vitest setupFiles): after all of the file's tests,
 * drop the PostgreSQL schemas it made, so a long run or a shared
 * TEST_DATABASE_URL server does not pile them up.
 */
import { afterAll } from 'vitest';
import { dropCreatedSchemas } from './helpers/test-database.js';

afterAll(() => dropCreatedSchemas());
