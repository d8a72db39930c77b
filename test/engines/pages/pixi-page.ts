// PixiJS 8 from its npm package: the plugin registered with extensions.add(), the app initialised with the
// questPoints option, the canvas appended after init() (the HUD waits for it), app.destroy() to end.
import './timers.js';
import { Application, extensions, Graphics } from 'pixi.js';
import { QuestPointsPixiPlugin } from '../../../src/pixi/index.js';
import { expose, pluginOptions, stage } from './engine-page.js';

extensions.add(QuestPointsPixiPlugin);

expose(async () => {
  const app = new Application();
  await app.init({ width: 480, height: 320, preference: 'webgl', background: '#0e1a2b', questPoints: pluginOptions });
  stage().append(app.canvas);
  const coin = new Graphics().circle(0, 0, 20).fill('#fcc419');
  app.stage.addChild(coin);
  app.ticker.add((ticker) => {
    coin.x = (coin.x + ticker.deltaTime * 4) % 480;
    coin.y = 160;
  });
  return {
    binding: () => app.questPoints,
    destroy: () => app.destroy(true, { children: true }),
    canvas: app.canvas,
    webgl: () => app.renderer.name === 'webgl',
  };
});
