// A real browser for the tests: Debian's Chromium, headless, driven by playwright-core (which downloads no
// browser). Pages are checked with axe-core, evaluated through the DevTools protocol so a page's strict
// Content-Security-Policy stays in force while it is checked.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { repoRoot } from './tools.ts';

const CHROMIUM = process.env.CW_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  // As root (CI here) Chromium refuses its sandbox; the pages it opens are ours.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}

let axeSource: string | undefined;

/** Runs axe-core on the page as it stands; fails on any serious or critical violation, naming each. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(`${axeSource};0`);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[] }> } }).axe;
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${what}: ${JSON.stringify(serious, null, 1)}`).toEqual([]);
}

/**
 * Collects what the page reports as errors (a script refused by its CSP, an exception); not a request that
 * got a 4xx, which the page may well expect (whether one is signed in, a refused password).
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** Signs in on the console's sign-in page (at `url`), waiting for the page behind it. */
export async function signInToConsole(page: Page, url: string, user: string, password: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { name: 'Sign in to Cloudwright' }).waitFor();
  await page.getByLabel('User').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
}

/** Where `CW_UPDATE_SCREENSHOTS=1` has the console's tests write the screenshots docs/console.md shows. */
const SCREENSHOTS = process.env.CW_UPDATE_SCREENSHOTS === '1' ? join(repoRoot, 'docs', 'screenshots') : undefined;

/**
 * What every console page must be: accessible (axe-core, no serious violation) and readable at 320 px without
 * scrolling sideways. Saves its screenshot when asked to.
 */
export async function checkConsolePage(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  const viewport = page.viewportSize() ?? { width: 1100, height: 800 };
  await page.setViewportSize({ width: 320, height: 800 });
  expect(await page.evaluate('document.documentElement.scrollWidth'), `${name} fits 320 px`).toBeLessThanOrEqual(320);
  await page.setViewportSize(viewport);
  if (SCREENSHOTS) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `console-${name}.png`), fullPage: true });
  }
}
