/**
 * Headless Chromium for the page tests (catalog, /docs, seller console): Debian's `chromium`
 * (CHROMIUM_PATH overrides), driven by playwright-core. One place for the path, the reason a
 * test is skipped without it, and the launch flags.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A test's `skip` option: false when Chromium is there, else the reason (how to install it). */
export const noChromium: false | string = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium) to run this test`;

/**
 * Chromium without its own background traffic (component updates, safe browsing, sync): on a
 * closed network each of those is a refused connection, and none is a request of the page
 * under test. As root (CI), the sandbox needs --no-sandbox.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
