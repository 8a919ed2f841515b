/**
 * Shared set-up of the dashboard's browser suites: Debian's Chromium driven by
 * playwright-core (no browser download), the per-view check (axe-core with no
 * serious or critical violation, no CSP violation, a screenshot under
 * test-artifacts/dashboard/), and the editor and key helpers.
 *
 * Without /usr/bin/chromium a suite is skipped, saying so; under CI=true a
 * missing Chromium fails (.ci/run installs it).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import axe from 'axe-core';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { describe, expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'dashboard');
const haveChromium = existsSync(CHROMIUM);

/** `describe` where Chromium is (or CI demands it), else `describe.skip` with a visible reason. */
export function browserSuite(file: string): typeof describe | typeof describe.skip {
  if (!haveChromium && process.env.CI !== 'true') {
    console.warn(`${file}: skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  }
  return haveChromium || process.env.CI === 'true' ? describe : describe.skip;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** A fresh headless Chromium profile whose pages record every CSP violation in `window.cspViolations`. */
export async function launchBrowser(): Promise<Browser> {
  if (!haveChromium) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const userDataDir = mkdtempSync(join(tmpdir(), 'switchyard-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  await context.addInitScript(
    "window.cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));",
  );
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Evaluates an expression in the page (a string: the tests are compiled without the DOM's types). */
export const inPage = <T = unknown>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;

/** axe-core on the page as it is (evaluated over the DevTools protocol, so the page's CSP still holds), then a screenshot. */
export async function checkView(page: Page, view: string): Promise<void> {
  await page.evaluate(axe.source);
  const result = await inPage<axe.AxeResults>(page, 'axe.run(document)');
  const violations = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(violations, `axe on ${view}`).toEqual([]);
  expect(await inPage(page, 'window.cspViolations'), `CSP on ${view}`).toEqual([]);
  await page.screenshot({ path: join(ARTIFACTS, `${view}.png`), fullPage: true });
}

/** Replaces the code editor's whole text as typed input. */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Opens `url` and answers the admin key prompt (the page asks on the first 401). */
export async function enterKey(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Admin key' }).fill(key);
  await page.getByRole('button', { name: 'Use this key' }).click();
}
