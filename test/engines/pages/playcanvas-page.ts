// PlayCanvas from its npm package: an Application on a canvas, QuestPointsScript created on an entity with its
// options as a property, app.destroy() to end (it destroys the entities, and so the script).
import './timers.js';
import { Application, Color, Entity } from 'playcanvas';
import { QuestPointsScript } from '../../../src/playcanvas/index.js';
import { until } from '../../helpers/until.js';
import { expose, pluginOptions, stage } from './engine-page.js';

expose(async () => {
  const canvas = document.createElement('canvas');
  canvas.width = 480;
  canvas.height = 320;
  stage().append(canvas);
  const app = new Application(canvas, { graphicsDeviceOptions: { deviceTypes: ['webgl2', 'webgl1'] } });
  const camera = new Entity('camera');
  camera.addComponent('camera', { clearColor: new Color(0.05, 0.1, 0.17) });
  camera.setPosition(0, 0, 5);
  app.root.addChild(camera);
  const box = new Entity('box');
  box.addComponent('render', { type: 'box' });
  app.root.addChild(box);
  app.on('update', (dt: number) => box.rotate(0, dt * 60, 0));
  const game = new Entity('quest-points');
  game.addComponent('script');
  const script = game.script!.create(QuestPointsScript, { properties: { options: pluginOptions } });
  app.root.addChild(game);
  app.start();
  // initialize() runs on the app's first tick.
  await until(() => script?.questPoints, 'the script initialised', 10_000);
  return {
    binding: () => script?.questPoints ?? null,
    destroy: () => app.destroy(),
    canvas,
    webgl: () => app.graphicsDevice.isWebGL2,
  };
});
