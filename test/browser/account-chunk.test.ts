// The account calls' chunk as a game meets it: a Vite production build of a page over the package as installed
// (test/helpers/stage.ts), served by `vite preview` with the quest-points plugin (dev relay and emulator), in
// Chromium. The page's up-front scripts leave identify's code out; the first account call fetches it, and it works.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { stageProject, type StagedProject } from '../helpers/stage.js';

type Plugin = typeof import('../../src/vite/index.js');
type AccountWindow = {
  ready: boolean;
  enrollment(): Promise<unknown>;
  identify(input: unknown): Promise<string>;
};

/** A message of the e-mail rule: only the account chunk (identify-rules.ts) holds it. */
const EMAIL_MESSAGE = 'must be a valid e-mail address';

const MAIN = `import { createQuestPoints } from 'quest-points';
const { token } = await (await fetch('/__dev/token?sub=chunk-player&email=chunk@example.com')).json();
const qp = createQuestPoints({ relayUrl: '/api', getToken: () => token, questId: 'chunk-quest', serviceUserId: 'chunk-player' });
window.enrollment = () => qp.fetchEnrollment();
window.identify = (input) => qp.identify(input).catch((error) => error.code + ' ' + error.field + ': ' + error.message);
window.ready = true;
`;

let project: StagedProject;
let browser: Browser;
let server: PreviewServer | undefined;
beforeAll(async () => {
  [project, browser] = await Promise.all([stageProject('account-chunk'), launchChromium()]);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await browser?.close();
  if (project) await rm(project.dir, { recursive: true, force: true });
});

describe('the account chunk in a Vite build', () => {
  it('is left out of the up-front scripts, fetched on the first account call and again after a failed load; identify answers from the cache without it', async () => {
    const plugin = (await import(join(project.pkg, 'dist/vite/index.js'))) as Plugin;
    await writeFile(join(project.dir, 'index.html'), '<!doctype html><title>game</title><script type="module" src="/main.js"></script>');
    await writeFile(join(project.dir, 'main.js'), MAIN);
    const outDir = join(project.dir, 'dist');
    const config = { configFile: false as const, root: project.dir, logLevel: 'silent' as const, plugins: [plugin.questPoints()] };
    await build({ ...config, build: { outDir, emptyOutDir: true, target: 'es2022' } });

    const scripts = (await readdir(join(outDir, 'assets'))).filter((file) => file.endsWith('.js'));
    const sources = new Map(await Promise.all(scripts.map(async (file) => [file, await readFile(join(outDir, 'assets', file), 'utf8')] as const)));
    const html = await readFile(join(outDir, 'index.html'), 'utf8');
    const entry = scripts.find((file) => html.includes(file))!;
    const chunk = scripts.find((file) => sources.get(file)!.includes(EMAIL_MESSAGE))!;
    expect(entry).toBeDefined();
    expect(chunk).toBeDefined();
    expect(chunk).not.toBe(entry);

    server = await preview({ ...config, build: { outDir }, preview: { host: '127.0.0.1', port: 0, open: false } });
    const base = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const loaded: string[] = [];
    page.on('request', (request) => loaded.push(new URL(request.url()).pathname));
    await page.goto(`${base}/`);
    await page.waitForFunction(() => (window as unknown as AccountWindow).ready === true, undefined, { timeout: 30_000 });
    expect(loaded).toContain(`/assets/${entry}`);
    expect(loaded).not.toContain(`/assets/${chunk}`);

    // Not enrolled yet in the emulator: null, not an error; the chunk came with the call.
    expect(await page.evaluate(() => (window as unknown as AccountWindow).enrollment())).toBeNull();
    expect(loaded).toContain(`/assets/${chunk}`);
    // The identify rules run from the chunk, in the browser: the field and the rule are named.
    expect(await page.evaluate(() => (window as unknown as AccountWindow).identify({ email: 'not an address' }))).toBe(
      `invalid email: email ${EMAIL_MESSAGE}`,
    );
    // The page's own identify (the dev token carries this e-mail): a serviceUserId, not an error's text.
    const id = await page.evaluate(() => (window as unknown as AccountWindow).identify({ email: 'chunk@example.com' }));
    expect(id).toMatch(/^[^ ]+$/);
    expect(errors).toEqual([]);

    // A later page of the game with neither the relay nor the chunk reachable (offline, the chunk not in any cache):
    // identify still answers from the cache, as documented; the enrollment call, which needs both, is refused.
    // The same browser context: the same origin's IndexedDB, where the first page cached the answer.
    const later = await context.newPage();
    await later.goto(`${base}/`);
    await later.waitForFunction(() => (window as unknown as AccountWindow).ready === true, undefined, { timeout: 30_000 });
    const unreachable = (route: { abort(): Promise<void> }) => route.abort();
    await later.route(`**/assets/${chunk}`, unreachable);
    await later.route('**/api/**', unreachable);
    expect(await later.evaluate(() => (window as unknown as AccountWindow).identify({ email: 'chunk@example.com' }))).toBe(id);
    await expect(later.evaluate(() => (window as unknown as AccountWindow).enrollment())).rejects.toThrow();
    // Reachable again: the chunk is fetched anew (a failed load is not kept) and the call answers.
    await later.unroute(`**/assets/${chunk}`);
    await later.unroute('**/api/**');
    expect(await later.evaluate(() => (window as unknown as AccountWindow).enrollment())).toBeNull();
    await context.close();
  });
});
