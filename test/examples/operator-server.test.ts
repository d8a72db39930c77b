// examples/operator-server in Chromium: Express with a cookie session, a login form, the token route, the relay at
// /qp and the SDK's worker (docs/hosting.md's set-up), against an emulator. Signed out: the token route answers 401 and the page shows the login form. Signed in:
// award online, offline, back online (harness.ts), the ledger under the session's player.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperatorExample } from '../../examples/operator-server/server.js';
import { launchChromium } from '../helpers/chromium.js';
import { until } from '../helpers/until.js';
import { onlineOfflineOnline, openExample } from './harness.js';

let browser: Browser;
let running: Awaited<ReturnType<typeof startOperatorExample>>;
beforeAll(async () => {
  [browser, running] = await Promise.all([launchChromium(), startOperatorExample(0)]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

async function ledgerTotal(serviceUserId: string): Promise<number> {
  const response = await fetch(`${running.emulatorUrl}/__emulator/state`);
  const { data } = (await response.json()) as { data: { ledger: { serviceUserId: string; eventPoints: number }[] } };
  return data.ledger.filter((e) => e.serviceUserId === serviceUserId).reduce((sum, e) => sum + e.eventPoints, 0);
}

describe('examples/operator-server', () => {
  it('without a session: the token route is 401 and a name that breaks the rule is 400 naming it', async () => {
    const token = await fetch(`${running.url}/login/qp-token`);
    expect(token.status).toBe(401);
    const login = await fetch(`${running.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=%3Cscript%3E',
      redirect: 'manual',
    });
    expect(login.status).toBe(400);
    expect(await login.text()).toContain('name must be 1-32 characters');
  });

  it('signs in with the form, then awards online, offline and back online under the session player', async () => {
    const opened = await openExample(browser, `${running.url}/`);
    await opened.page.fill('#login input[name=name]', 'alice');
    await opened.page.click('#login button');
    await until(async () => (await opened.page.locator('#who').textContent()) === 'playing as alice', 'signed in as alice');
    // docs/hosting.md's set-up (this page's code): the server's worker, registered with the page's relay and token
    // route, is active over the whole site.
    const worker = () => opened.page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL ?? '');
    await until(async () => (await worker()) !== '', 'the worker active');
    expect(new URL(await worker()).pathname + new URL(await worker()).search).toBe('/quest-points-sw.js?relayUrl=/qp&tokenUrl=/login/qp-token');
    await onlineOfflineOnline(opened, { award: () => opened.page.click('#coin'), points: 5, ledger: () => ledgerTotal('alice') });
    // The session is the cookie: the token route answers it, and only it.
    const cookies = await opened.context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly])).toEqual([['connect.sid', true]]);
    await opened.context.close();
  }, 90_000);
});
