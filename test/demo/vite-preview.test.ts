import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { preview, type PreviewServer } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/dev/index.js';
import { paths } from '../../src/protocol/index.js';
import { questPoints } from '../../src/vite/index.js';
import { testTempDir } from '../helpers/temp.js';

// `vite preview` serves a production build: the plugin mounts the same dev relay there, in front of the SPA
// fallback that would otherwise answer index.html (200, text/html) for /__dev/token.

let server: PreviewServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function builtSite(): Promise<string> {
  const dir = testTempDir('qp-preview');
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>built game</title><p>built</p>');
  return dir;
}

describe('quest-points/vite under vite preview', () => {
  it("answers /__dev/token with JSON and relays /api with that token; other paths stay the build's", async () => {
    const dir = await builtSite();
    server = await preview({
      configFile: false,
      root: dir,
      logLevel: 'silent',
      plugins: [questPoints()],
      build: { outDir: dir },
      preview: { host: '127.0.0.1', port: 0, open: false },
    });
    const base = server.resolvedUrls!.local[0]!.replace(/\/$/, '');

    const tokenResponse = await fetch(`${base}/__dev/token?sub=preview-player`);
    expect(tokenResponse.status).toBe(200);
    expect(tokenResponse.headers.get('content-type')).toMatch(/^application\/json/);
    const data = (await tokenResponse.json()) as { token: string; sub: string };
    expect(data.sub).toBe('preview-player');

    const award = await fetch(`${base}/api${paths.points('preview-quest')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${data.token}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
      body: JSON.stringify({ serviceUserId: 'preview-player', eventPoints: 3 }),
    });
    expect(award.status).toBe(200);
    const read = await fetch(`${base}/api${paths.pointsOf('preview-quest', 'preview-player')}`, {
      headers: { authorization: `Bearer ${data.token}` },
    });
    expect(((await read.json()) as { data: { totalPoints: number } }).data.totalPoints).toBe(3);

    const page = await fetch(`${base}/`);
    expect(await page.text()).toContain('built game');
  });

  it('refuses a preview server on a non-loopback host', async () => {
    const dir = await builtSite();
    await expect(
      preview({
        configFile: false,
        root: dir,
        logLevel: 'silent',
        plugins: [questPoints()],
        build: { outDir: dir },
        preview: { host: '0.0.0.0', port: 0, open: false },
      }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
