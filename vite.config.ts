import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { questPoints } from './src/vite/index.js';

const repo = fileURLToPath(new URL('.', import.meta.url));
const demo = `${repo}demo/`;

// One config for the demo (`npm start`) and the test suite (`npm test`).
export default defineConfig({
  // The demo is a multi-page app under demo/; the plugin mounts emulator + dev relay on the same port.
  root: demo,
  plugins: [questPoints()],
  server: { host: '127.0.0.1', port: 5173 },
  // Pre-bundled at start-up, so the first visit of the Phaser or React page does not trigger a dependency
  // re-optimisation and a full reload.
  optimizeDeps: { include: ['phaser', 'react', 'react-dom/client', 'react/jsx-dev-runtime', 'react/jsx-runtime'] },
  build: {
    outDir: `${repo}dist/demo`,
    emptyOutDir: true,
    rollupOptions: {
      input: {
        index: `${demo}index.html`,
        game: `${demo}game.html`,
        phaser: `${demo}phaser.html`,
        react: `${demo}react.html`,
        console: `${demo}console.html`,
        hud: `${demo}hud.html`,
      },
    },
  },
  test: {
    // Tests live at the repo root, not under the demo root.
    root: repo,
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Browser and chaos suites launch Chromium; two cores cannot run many at once. Three workers: much of the suite
    // waits on servers, browsers and Retry-After (the chaos share), not on a core.
    maxWorkers: 3,
  },
});
