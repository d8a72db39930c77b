// PixiJS v8: the canvas Pixi makes and the HUD share one positioned container; clicking the star awards 10 points.
// Run it: `npm run example pixi`.
// #region game
import { Application, Graphics } from 'pixi.js';
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { tokenFrom } from 'quest-points/sw';

const qp = createQuestPoints({ relayUrl: '/api', getToken: tokenFrom('/__dev/token'), questId: 'summer', serviceUserId: 'dev-player' });
const stage = document.querySelector('#game') ?? document.body; // position: relative, the canvas's size
attachHud(qp, { parent: stage });

const app = new Application();
await app.init({ width: 640, height: 360, background: '#1b2334' });
stage.append(app.canvas);
const star = new Graphics().star(0, 0, 5, 40, 18).fill(0xf5c542);
star.position.set(320, 180);
star.eventMode = 'static';
star.cursor = 'pointer';
star.on('pointertap', () => qp.award({ eventPoints: 10, eventName: 'star' }));
app.stage.addChild(star);
app.ticker.add((ticker) => {
  star.rotation += 0.01 * ticker.deltaTime; // a little motion; the star stays under the pointer
});
// #endregion game
