import { EventEmitter } from 'eventemitter3';
import { afterEach, describe, expect, it } from 'vitest';
import { createQuestPoints, type QuestPoints } from '../../src/client/index.js';
import { questPointsPlugins } from '../../src/phaser/index.js';

// The scene plugin's listeners belong to its scene: removing them never touches the game's or another scene's.

let client: QuestPoints | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function gameWithScenes(count: number) {
  client = createQuestPoints({
    relayUrl: 'http://relay.test',
    getToken: () => 't',
    storage: 'memory',
    fetch: async () => new Response('{}', { status: 503 }),
    backoff: { baseMs: 60_000, maxMs: 60_000 },
  });
  const config = questPointsPlugins({ client });
  const game = { name: 'game' };
  const globalEntry = config.global[0];
  const sceneEntry = config.scene[0];
  if (!globalEntry || !sceneEntry) throw new Error('questPointsPlugins() gave no plugins');
  new globalEntry.plugin({ game }).init(globalEntry.data);
  const scenes = Array.from({ length: count }, () => {
    const plugin = new sceneEntry.plugin({ events: new EventEmitter() }, { game });
    plugin.boot();
    return plugin;
  });
  return { client, scenes };
}

describe('QuestPointsScenePlugin.off', () => {
  it("without a listener removes only this scene's listeners of the event", () => {
    const { client, scenes } = gameWithScenes(2);
    const [a, b] = scenes;
    if (!a || !b) throw new Error('two scenes expected');
    const heard: string[] = [];
    client.on('award:queued', () => heard.push('game'));
    a.on('award:queued', () => heard.push('a'));
    b.on('award:queued', () => heard.push('b'));
    a.off('award:queued');
    client.award({ eventPoints: 1, questId: 'q', serviceUserId: 'u' });
    expect(heard.sort()).toEqual(['b', 'game']);
  });

  it('with a listener removes that listener', () => {
    const { client, scenes } = gameWithScenes(1);
    const [a] = scenes;
    if (!a) throw new Error('a scene expected');
    const heard: string[] = [];
    const one = () => heard.push('one');
    a.on('award:queued', one);
    a.on('award:queued', () => heard.push('two'));
    a.off('award:queued', one);
    client.award({ eventPoints: 1, questId: 'q', serviceUserId: 'u' });
    expect(heard).toEqual(['two']);
  });
});

describe("a rule's refusal through the Phaser paths (issue 35)", () => {
  it("award:rejected carries the relay's code to the scene plugin's listener and to a bound scene's events", async () => {
    client = createQuestPoints({
      relayUrl: 'http://relay.test',
      getToken: () => 't',
      storage: 'memory',
      flushDelayMs: 1,
      fetch: async () =>
        new Response(JSON.stringify({ success: false, message: 'cooldown events.coin (2 s) for this player', code: 'cooldown' }), {
          status: 422,
          headers: { 'content-type': 'application/json' },
        }),
    });
    const config = questPointsPlugins({ client });
    const game = { name: 'game' };
    new config.global[0]!.plugin({ game }).init(config.global[0]!.data);
    const events = new EventEmitter();
    const plugin = new config.scene[0]!.plugin({ events }, { game });
    plugin.boot();
    const codes: (string | undefined)[] = [];
    plugin.on('award:rejected', ({ deadLetter }) => codes.push(deadLetter.code));
    const { bindScene } = await import('../../src/phaser/scene-binding.js');
    const scene = { events: new EventEmitter() };
    bindScene(client, scene);
    scene.events.on('award:rejected', ({ deadLetter }: { deadLetter: { code?: string } }) => codes.push(deadLetter.code));
    const outcome = await client.award({ eventPoints: 1, eventName: 'coin', questId: 'q', serviceUserId: 'u' }).settled;
    expect(outcome.outcome).toBe('rejected');
    expect(codes).toEqual(['cooldown', 'cooldown']);
  });
});
