import { createServer } from 'vite';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/dev/index.js';
import { isDevPath, questPoints } from '../../src/vite/index.js';

describe('quest-points/vite', () => {
  it('claims only the dev paths', () => {
    for (const path of ['/api', '/api/batch/points', '/__emulator/mode', '/__dev/token?sub=a']) expect(isDevPath(path), path).toBe(true);
    for (const path of ['/', '/apiary', '/game.html', '/src/api.ts', '/__devtools']) expect(isDevPath(path), path).toBe(false);
  });

  it('applies to the dev server only (no effect on vite build)', () => {
    expect(questPoints().apply).toBe('serve');
  });

  it('refuses a Vite dev server on a non-loopback host', async () => {
    await expect(createServer({ configFile: false, root: import.meta.dirname, logLevel: 'silent', plugins: [questPoints()], server: { host: '0.0.0.0', port: 0, ws: false } })).rejects.toBeInstanceOf(ConfigError);
  });
});
