import { createServer, resolveConfig } from 'vite';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/dev/index.js';
import { isDevPath, questPoints } from '../../src/vite/index.js';

describe('quest-points/vite', () => {
  it('claims only the dev paths', () => {
    for (const path of ['/api', '/api/batch/points', '/__emulator/mode', '/__dev/token?sub=a']) expect(isDevPath(path), path).toBe(true);
    for (const path of ['/', '/apiary', '/game.html', '/src/api.ts', '/__devtools']) expect(isDevPath(path), path).toBe(false);
  });

  it('Vite keeps the plugin for serve (vite, vite preview) and drops it for vite build', async () => {
    const names = async (command: 'serve' | 'build') =>
      (await resolveConfig({ configFile: false, root: import.meta.dirname, logLevel: 'silent', plugins: [questPoints()] }, command)).plugins.map(
        (plugin) => plugin.name,
      );
    expect(await names('serve')).toContain('quest-points');
    expect(await names('build')).not.toContain('quest-points');
  });

  it('refuses a Vite dev server on a non-loopback host, and only then', async () => {
    const start = (host: string) =>
      createServer({
        configFile: false,
        root: import.meta.dirname,
        logLevel: 'silent',
        plugins: [questPoints()],
        server: { host, port: 0, ws: false },
      });
    const refused = await start('0.0.0.0').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain('0.0.0.0');
    // The same server on loopback starts: the refusal above is the host check, not something else failing.
    const accepted = await start('127.0.0.1');
    await accepted.close();
  });
});
