// @vitest-environment happy-dom
// What the three engine plugins share (src/engines/binding.ts), without an engine: listeners the game adds through the
// binding are its own (off() never touches the game's), the HUD waits for a canvas not yet in the page and is never
// placed if the engine goes first, a static parent is made positioned, bad options are reported instead of thrown;
// and the Babylon.js hooks with Babylon's NullEngine (no WebGL): a Behavior detached when its node is disposed, and
// questPointsForScene's observer removed whichever ends first.
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QuestPointsBehavior, questPointsForScene } from '../../src/babylon/index.js';
import { createQuestPoints, type QuestPoints } from '../../src/client/index.js';
import { bindOrReport, QuestPointsBinding } from '../../src/engines/binding.js';
import { type PixiApplicationLike, QuestPointsPixiPlugin } from '../../src/pixi/index.js';
import { until } from '../helpers/until.js';

const clients: QuestPoints[] = [];
function client(): QuestPoints {
  const made = createQuestPoints({
    relayUrl: 'http://relay.test',
    getToken: () => 't',
    questId: 'q',
    serviceUserId: 'u',
    storage: 'memory',
    fetch: async () => new Response('{}', { status: 503 }),
    backoff: { baseMs: 60_000, maxMs: 60_000 },
  });
  clients.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  document.body.replaceChildren();
  vi.restoreAllMocks();
});

describe('QuestPointsBinding', () => {
  it("off(event) without a listener removes only the binding's listeners; destroy() removes the rest and leaves a given client open", async () => {
    const qp = client();
    const binding = new QuestPointsBinding({ client: qp, hud: false }, null);
    const heard: string[] = [];
    qp.on('award:queued', () => heard.push('game'));
    binding.on('award:queued', () => heard.push('a')).on('award:queued', () => heard.push('b'));
    binding.once('award:queued', () => heard.push('once'));
    binding.off('award:queued');
    binding.award({ eventPoints: 1 });
    expect(heard).toEqual(['game']);
    binding.on('points:changed', () => heard.push('view'));
    await binding.destroy();
    qp.award({ eventPoints: 2 });
    expect(heard).toEqual(['game', 'game']);
    expect(() => binding.client).toThrow(/destroyed/);
    expect(qp.viewPoints().totalPoints).toBe(3);
  });

  it('places the HUD once the canvas is in the page, in its parent, made positioned; not at all if destroyed first', async () => {
    const canvas = document.createElement('canvas');
    const binding = new QuestPointsBinding({ client: client() }, canvas);
    expect(binding.hud).toBeUndefined();
    const stage = document.createElement('div');
    document.body.append(stage);
    stage.append(canvas);
    const hud = await until(() => binding.hud, 'the HUD after the canvas arrived');
    expect(hud.parentElement).toBe(stage);
    expect(stage.style.position).toBe('relative');
    await binding.destroy();
    expect(hud.isConnected).toBe(false);

    const later = document.createElement('canvas');
    const gone = new QuestPointsBinding({ client: client() }, later);
    await gone.destroy();
    const other = document.createElement('div');
    document.body.append(other);
    other.append(later);
    await new Promise((resolve) => setTimeout(resolve, 0)); // mutation records are delivered as a microtask
    expect(document.querySelectorAll('quest-points-hud')).toHaveLength(0);
  });

  it('bad options are reported on the console, not thrown into the engine', () => {
    const report = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(bindOrReport('TestPlugin', undefined, null)).toBeNull();
    expect(bindOrReport('TestPlugin', { questId: 'q' }, null)).toBeNull();
    expect(report).toHaveBeenCalledTimes(2);
    expect(String(report.mock.calls[0]![0])).toMatch(/TestPlugin is not bound/);
    // The PixiJS hook, as app.init() calls it: the app starts, without quest points.
    const app: PixiApplicationLike = { canvas: document.createElement('canvas') };
    expect(() => QuestPointsPixiPlugin.init.call(app, { questPoints: { questId: 'q' } })).not.toThrow();
    expect(app.questPoints).toBeNull();
  });
});

describe('Babylon.js hooks (NullEngine)', () => {
  it('QuestPointsBehavior: attached by addBehavior, detached when the node is disposed', () => {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    const node = new TransformNode('quest', scene);
    const behavior = new QuestPointsBehavior({ client: client(), hud: false });
    node.addBehavior(behavior);
    expect(behavior.attachedNode).toBe(node);
    const binding = behavior.questPoints!;
    expect(binding.award({ eventPoints: 4 }).idempotencyKey).toMatch(/-/);
    node.dispose();
    expect(behavior.questPoints).toBeNull();
    expect(() => binding.client).toThrow(/destroyed/);
    engine.dispose();
  });

  it('questPointsForScene: let go when the scene is disposed, and its observer removed when destroyed first', async () => {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    const observers = () => scene.onDisposeObservable.observers.length;
    const before = observers();
    const early = questPointsForScene(scene, { client: client(), hud: false });
    expect(observers()).toBe(before + 1);
    await early.destroy();
    // Babylon removes an observer on the next task (Observable.remove defers it).
    await until(() => observers() === before, 'the observer removed');

    const bound = questPointsForScene(scene, { client: client(), hud: false });
    scene.dispose();
    expect(() => bound.client).toThrow(/destroyed/);
    engine.dispose();
  });
});
