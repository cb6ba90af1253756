import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

/** Debian's chromium (scripts/test.sh installs the package when missing). */
export const CHROMIUM = process.env.KEYWARD_CHROMIUM ?? "/usr/bin/chromium";
/** Where browser suites write their screenshots (git-ignored). */
export const SCREENSHOTS = join(process.cwd(), "test-output", "screenshots");

const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
];

/** A real headless chromium with a fresh profile, removed again by `close()`. */
export async function openBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), "keyward-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Screenshots of the current page at desktop (1280×800) and phone (390 px wide) sizes, full length. */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
}

/**
 * One chromium page for a browser suite, opened before its tests and closed after them, on the dashboard of the
 * server `baseUrl()` names; `signIn` opens `#hash` and signs in with the root key.
 */
export function useDashboardPage(baseUrl: () => string) {
  let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await openBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  const url = (hash: string) => `${baseUrl()}/dashboard#${hash}`;
  return {
    get page(): Page {
      if (!page) throw new Error("the browser page opens in beforeAll");
      return page;
    },
    url,
    async signIn(rootKey: string, hash: string) {
      const current = this.page;
      await current.goto(url(hash));
      await current.getByLabel("Root key").fill(rootKey);
      await current.getByRole("button", { name: "Sign in" }).click();
    },
  };
}
