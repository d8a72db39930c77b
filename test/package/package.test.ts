// The package as npm would publish it: compiled from the current sources into a staging directory (the repo's own
// dist/ is left alone), packed, then checked by publint --strict and attw --profile esm-only, the same CLIs a user
// runs. Plus what those tools do not check: the file list and its size (README links: test/docs/links.test.ts).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Packed, tarballProblems } from '../../scripts/release/tarball.mjs';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const bin = (name: string) => join(repo, 'node_modules/.bin', name);
const REPOSITORY = 'https://github.com/quest-points/quest-points';

let stage: string;
let tarball: string;
let packed: Packed;

beforeAll(async () => {
  stage = await mkdtemp(join(tmpdir(), 'qp-package-'));
  await run(process.execPath, [
    join(repo, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(repo, 'tsconfig.build.json'),
    '--outDir',
    join(stage, 'dist'),
  ]);
  await run(process.execPath, [join(repo, 'scripts/build-sw.mjs'), join(stage, 'dist')]);
  await run(process.execPath, [join(repo, 'scripts/build-global.mjs'), join(stage, 'dist/global/index.js')]);
  for (const file of ['package.json', 'README.md', 'LICENSE']) await copyFile(join(repo, file), join(stage, file));
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', stage], { cwd: stage });
  packed = (JSON.parse(stdout) as Packed[])[0]!;
  tarball = join(stage, packed.filename);
}, 120_000);

afterAll(async () => {
  if (stage) await rm(stage, { recursive: true, force: true });
});

/** What a consumer imports: every entry a browser game uses (DOM), and every entry a server or tool uses (no DOM). */
const CONSUMERS = {
  browser: {
    lib: ['es2023', 'dom', 'dom.iterable'],
    types: [],
    source: `import { createQuestPoints, type AwardOutcome, type DeadLetter, type QuestPoints } from 'quest-points';
import { backgroundSync, registerQuestPointsSync, SYNC_TAG } from 'quest-points/sw';
import { QuestPointsProvider, usePoints, useQuestPointsStatus } from 'quest-points/react';
import { QuestPointsPlugin, questPointsPlugins } from 'quest-points/phaser';
import { AWARD_RULES } from 'quest-points/protocol';
export const used = [createQuestPoints, backgroundSync, registerQuestPointsSync, SYNC_TAG, QuestPointsProvider, usePoints, useQuestPointsStatus, QuestPointsPlugin, questPointsPlugins, AWARD_RULES];
export type Used = [AwardOutcome, DeadLetter, QuestPoints];
`,
  },
  server: {
    lib: ['es2023'],
    types: ['node'],
    source: `import { createRelay, signPlayerToken } from 'quest-points/relay';
import { startRelay, createRedisCounterStore } from 'quest-points/relay/node';
import { createEmulator, startEmulator } from 'quest-points/emulator';
import { questPoints } from 'quest-points/vite';
import { AWARD_RULES } from 'quest-points/protocol';
import { createQuestPoints } from 'quest-points';
export const used = [createRelay, startRelay, signPlayerToken, createRedisCounterStore, createEmulator, startEmulator, questPoints, AWARD_RULES, createQuestPoints];
`,
  },
};

describe('the published package', { timeout: 60_000 }, () => {
  it('publint --strict: no error, warning or suggestion', async () => {
    const { stdout, stderr } = await run(bin('publint'), ['run', tarball, '--strict']).catch((error: { stdout: string; stderr: string }) => error);
    expect(`${stdout}${stderr.replace(/^npm warn .*\n/gm, '')}`).toMatch(/All good!/);
  });

  it('attw --profile esm-only: no problem on any entry point', async () => {
    const { stdout } = await run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'json'], { maxBuffer: 64 << 20 }).catch(
      (error: { stdout: string }) => error,
    );
    const result = JSON.parse(stdout) as { analysis: { entrypoints: Record<string, unknown>; problems: { resolutionKind?: string }[] } };
    expect(Object.keys(result.analysis.entrypoints).sort()).toEqual([
      '.',
      './babylon',
      './emulator',
      './global',
      './hud',
      './leaderboard',
      './package.json',
      './phaser',
      './pixi',
      './playcanvas',
      './protocol',
      './react',
      './relay',
      './relay/node',
      './sw',
      './sw.js',
      './vite',
    ]);
    // The JSON lists every problem; the esm-only profile leaves out the CommonJS resolutions (node10, node16 from CJS)
    // an ESM-only package cannot satisfy. Whatever remains is a real fault (a missing type, a wrong format).
    const ignored = new Set(['node10', 'node16-cjs']);
    expect(result.analysis.problems.filter((problem) => !ignored.has(problem.resolutionKind ?? ''))).toEqual([]);
    // And the CLI itself agrees (its exit code is what CI would see).
    await expect(run(bin('attw'), [tarball, '--profile', 'esm-only'])).resolves.toBeDefined();
  });

  it('ships dist, README and LICENSE only: no source maps, no demo build, every entry, lean', () => {
    // The rule and its size bounds live in scripts/release/tarball.mjs, shared with `npm run release:dry`.
    expect(tarballProblems(packed, JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')))).toEqual([]);
  });

  // The declarations as a consumer's strict project checks them with skipLibCheck false: each d.ts we ship must
  // compile on its own, with the DOM lib (a game) and without it (a server with @types/node).
  it.each(Object.keys(CONSUMERS) as (keyof typeof CONSUMERS)[])(
    'a %s consumer type-checks the declarations with skipLibCheck false',
    async (kind) => {
      const { lib, types, source } = CONSUMERS[kind];
      const consumer = join(stage, `consumer-${kind}`);
      await mkdir(join(consumer, 'node_modules'), { recursive: true });
      // The package as installed (its staged dist), its dependencies from the repo's node_modules.
      await symlink(stage, join(consumer, 'node_modules/quest-points'), 'dir');
      if (!existsSync(join(stage, 'node_modules'))) await symlink(join(repo, 'node_modules'), join(stage, 'node_modules'), 'dir');
      await writeFile(join(consumer, 'package.json'), JSON.stringify({ type: 'module' }));
      await writeFile(join(consumer, 'index.ts'), source);
      const compilerOptions = {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        lib,
        types,
        typeRoots: [join(repo, 'node_modules/@types')],
      };
      await writeFile(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts'] }));
      const { stdout } = await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', consumer]).catch(
        (error: { stdout: string }) => error,
      );
      expect(stdout).toBe('');
    },
    // A whole tsc run over every declaration: 25-29 s beside other work, 55-60 s in a suite at load 20.
    120_000,
  );

  it('package.json names the license, repository, homepage, bugs and keywords', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      license: 'MIT',
      type: 'module',
      engines: { node: '>=20.19' },
      repository: { type: 'git', url: `git+${REPOSITORY}.git` },
      homepage: `${REPOSITORY}#readme`,
      bugs: { url: `${REPOSITORY}/issues` },
    });
    expect(pkg.keywords.length).toBeGreaterThan(3);
    expect(readFileSync(join(repo, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 quest-points contributors\n/);
  });
});

// What `npm install quest-points` costs a game that only wants the SDK: the tarball installed into an empty project,
// the way a user installs it (dependencies from the registry, optional peers left out).
describe('installed into an empty project', { timeout: 180_000 }, () => {
  let project: string;
  beforeAll(async () => {
    // Outside the stage: the type-check consumers link the repo's node_modules (redis included) into it, where Node's
    // resolution from a project inside would find them.
    project = await mkdtemp(join(tmpdir(), 'qp-consumer-'));
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project });
  }, 180_000);
  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('pulls at most 11 MB, and no server library: redis, prom-client, undici and pino are optional peers', async () => {
    // 32 MB before (node-redis alone 15 MB); 8.2 MB with redis and prom-client as optional peers; 15 MB with the Node
    // relay's undici pool and pino log as dependencies (issue 18); back under 10 MB with them optional peers too;
    // 10.4 MB with the relay's economy (issue 35: its ledger, webhooks and admin routes, 60 files of dist, and
    // standardwebhooks with its two dependencies, 0.2 MB). du counts blocks: quest-points itself is 2.2 MB on disk.
    const { stdout } = await run('du', ['-sk', join(project, 'node_modules')]);
    expect(Number(stdout.split('\t')[0]) * 1024).toBeLessThanOrEqual(11 * 1024 * 1024);
    for (const heavy of ['redis', '@redis/client', 'prom-client', 'lru-cache', 'undici', 'pino'])
      expect(existsSync(join(project, 'node_modules', heavy)), heavy).toBe(false);
  });

  it('--redis without the redis package: one line naming what to install', async () => {
    const env = {
      ...process.env,
      QP_API_KEY: 'k',
      QP_RELAY_SECRET: 'a-relay-secret-of-32-characters-at-least',
      QP_KEY_SECRET: 'a-key-secret-of-32-characters-at-least-0',
      QP_REDIS_URL: '',
    };
    const failed = await run(
      join(project, 'node_modules/.bin/quest-points'),
      ['relay', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--redis', 'redis://127.0.0.1:9'],
      { cwd: project, env, timeout: 20_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(
      /^quest-points relay: Sharing rate limits in Redis \(--redis, QP_REDIS_URL\) needs the "redis" package: npm install redis$/m,
    );
    // pino and undici missing too: the relay would run on JSON lines and fetch, and says so once each, first.
    expect(failed.stderr).toMatch(/"level":"warn","msg":"The asynchronous access log needs the \\"pino\\" package: npm install pino; until then/);
    expect(failed.stderr).toMatch(
      /"level":"warn","msg":"The upstream connection pool needs the \\"undici\\" package: npm install undici; until then/,
    );
  });

  it('the relay core loads without Node-only packages; createRedisCounterStore names redis when missing', async () => {
    const script = `import('quest-points/relay').then((m) => console.log(typeof m.createRelay))
      .then(() => import('quest-points/relay/node')).then((m) => m.createRedisCounterStore({ url: 'redis://127.0.0.1:9' }))
      .catch((error) => console.log(error.name + ': ' + error.message))`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(stdout).toBe('function\nConfigError: Sharing rate limits in Redis (--redis, QP_REDIS_URL) needs the "redis" package: npm install redis\n');
  });
});

// README.md's and docs/'s links (absolute in README.md for the npm page, files and anchors that exist): test/docs/links.test.ts.
