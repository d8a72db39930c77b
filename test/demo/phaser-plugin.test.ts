import { EventEmitter } from 'eventemitter3';
import { describe, expect, it, vi } from 'vitest';
import type { QuestPoints } from '../../src/client/index.js';
import { FORWARDED_EVENTS, QuestPointsPlugin } from '../../src/phaser/index.js';

// Real Phaser needs a browser (test/demo/pages.test.ts boots it there); here the plugin meets the same
// contract Phaser's PluginManager and Scene give it: eventemitter3 emitters and the init/start/destroy calls.

function fakeClient() {
  const emitter = new EventEmitter();
  const client = {
    on: (event: string, fn: (...args: unknown[]) => void) => {
      emitter.on(event, fn);
      return client;
    },
    off: (event: string, fn?: (...args: unknown[]) => void) => {
      emitter.off(event, fn);
      return client;
    },
    award: vi.fn(() => ({ idempotencyKey: 'k', settled: Promise.resolve({ outcome: 'sent', status: 'sent', idempotencyKey: 'k' }) })),
    getSnapshot: vi.fn(() => ({ online: true })),
    close: vi.fn(async () => {}),
  };
  return { client: client as unknown as QuestPoints, emitter, close: client.close, award: client.award };
}

function fakeScene() {
  return { events: new EventEmitter() };
}

function installed(data: ConstructorParameters<typeof Object>[0]) {
  const game = { name: 'game' };
  const plugin = new QuestPointsPlugin({ game });
  plugin.init(data as never);
  plugin.start();
  return { plugin, game };
}

describe('QuestPointsPlugin', () => {
  it('keeps the PluginManager and game like BasePlugin does, and delegates to the client', () => {
    const fake = fakeClient();
    const { plugin, game } = installed({ client: fake.client });
    expect(plugin.game).toBe(game);
    expect(plugin.client).toBe(fake.client);
    plugin.award({ eventPoints: 1 });
    expect(fake.award).toHaveBeenCalledWith({ eventPoints: 1 });
    expect(plugin.getSnapshot()).toEqual({ online: true });
  });

  it('forwards every SDK event to a bound scene with its payload', () => {
    const fake = fakeClient();
    const { plugin } = installed({ client: fake.client });
    const scene = fakeScene();
    plugin.bindScene(scene);
    for (const name of FORWARDED_EVENTS) {
      const seen = vi.fn();
      scene.events.on(name, seen);
      fake.emitter.emit(name, { name });
      expect(seen, name).toHaveBeenCalledWith({ name });
    }
  });

  it('removes its listeners from the client and the scene when the scene shuts down', () => {
    const fake = fakeClient();
    const { plugin } = installed({ client: fake.client });
    const scene = fakeScene();
    plugin.bindScene(scene);
    expect(fake.emitter.listenerCount('points:changed')).toBe(1);
    const seen = vi.fn();
    scene.events.on('points:changed', seen);

    scene.events.emit('shutdown');
    fake.emitter.emit('points:changed', { view: {} });
    expect(seen).not.toHaveBeenCalled();
    for (const name of FORWARDED_EVENTS) expect(fake.emitter.listenerCount(name), name).toBe(0);
    expect(scene.events.listenerCount('shutdown') + scene.events.listenerCount('destroy')).toBe(0);
    expect(plugin.boundScenes).toBe(0);
  });

  it('unbinds on scene destroy too, and a restarted scene binds again once', () => {
    const fake = fakeClient();
    const { plugin } = installed({ client: fake.client });
    const scene = fakeScene();
    plugin.bindScene(scene);
    plugin.bindScene(scene); // create() running again must not double the listeners
    expect(fake.emitter.listenerCount('award:sent')).toBe(1);
    scene.events.emit('destroy');
    expect(fake.emitter.listenerCount('award:sent')).toBe(0);
    plugin.bindScene(scene);
    expect(fake.emitter.listenerCount('award:sent')).toBe(1);
  });

  it('binds several scenes independently and can forward a subset of events', () => {
    const fake = fakeClient();
    const { plugin } = installed({ client: fake.client });
    const hud = fakeScene();
    const level = fakeScene();
    plugin.bindScene(hud, ['points:changed']);
    plugin.bindScene(level);
    const hudSeen = vi.fn();
    hud.events.on('award:sent', hudSeen);
    fake.emitter.emit('award:sent', {});
    expect(hudSeen).not.toHaveBeenCalled();
    level.events.emit('shutdown');
    expect(plugin.boundScenes).toBe(1);
    expect(fake.emitter.listenerCount('points:changed')).toBe(1);
  });

  it('destroy unbinds every scene; it closes only a client it created', async () => {
    const fake = fakeClient();
    const { plugin } = installed({ client: fake.client });
    plugin.bindScene(fakeScene());
    plugin.destroy();
    expect(fake.emitter.listenerCount('points:changed')).toBe(0);
    expect(fake.close).not.toHaveBeenCalled();
    expect(() => plugin.client).toThrow(/not initialised/);
  });

  it('creates and later closes its own client from options', async () => {
    const { plugin } = installed({ relayUrl: 'http://127.0.0.1:1/api', getToken: () => 't', storage: 'memory', questId: 'q', serviceUserId: 'u' });
    const close = vi.spyOn(plugin.client, 'close');
    plugin.destroy();
    expect(close).toHaveBeenCalledOnce();
  });

  it('refuses to start without data', () => {
    const plugin = new QuestPointsPlugin({ game: {} });
    expect(() => plugin.init(undefined)).toThrow(/data is required/);
  });
});

describe('QuestPointsScenePlugin (this.questPoints in every scene)', () => {
  it('gives a scene the typed events of the game client and removes them when the scene shuts down', async () => {
    const { createQuestPoints } = await import('../../src/client/index.js');
    const { QuestPointsScenePlugin, questPointsPlugins } = await import('../../src/phaser/index.js');
    const client = createQuestPoints({
      relayUrl: 'http://relay.test',
      getToken: () => 't',
      storage: 'memory',
      fetch: async () => new Response('{}', { status: 503 }),
      backoff: { baseMs: 60_000, maxMs: 60_000 },
    });
    const config = questPointsPlugins({ client });
    const game = { name: 'game' };
    const global = new config.global[0]!.plugin({ game });
    global.init(config.global[0]!.data);
    const scene = fakeScene();
    const plugin = new config.scene[0]!.plugin(scene, { game });
    expect(plugin).toBeInstanceOf(QuestPointsScenePlugin);
    plugin.boot();
    const queued: number[] = [];
    plugin.on('award:queued', ({ award }) => queued.push(award.eventPoints));
    plugin.award({ eventPoints: 2, questId: 'q', serviceUserId: 'u' });
    expect(queued).toEqual([2]);
    scene.events.emit('shutdown');
    plugin.award({ eventPoints: 3, questId: 'q', serviceUserId: 'u' });
    expect(queued).toEqual([2]);
    // A restarted scene adds its listeners again.
    plugin.once('award:queued', ({ award }) => queued.push(award.eventPoints));
    plugin.award({ eventPoints: 4, questId: 'q', serviceUserId: 'u' });
    plugin.award({ eventPoints: 5, questId: 'q', serviceUserId: 'u' });
    expect(queued).toEqual([2, 4]);
    expect(plugin.viewPoints('q', 'u').pendingPoints).toBe(14);
    await client.close();
  });
});
