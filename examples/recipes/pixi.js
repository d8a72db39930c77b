// PixiJS 8 with quest-points/pixi: the plugin makes the client in app.init() and closes it in app.destroy(), and puts
// the HUD over app.canvas; a click on the star awards 10 points.
// The page: <div id="game" style="position: relative; width: 800px; height: 600px"></div>
import { Application, extensions, Graphics } from 'pixi.js';
import { QuestPointsPixiPlugin } from 'quest-points/pixi';
import { tokenFrom } from 'quest-points/sw';

extensions.add(QuestPointsPixiPlugin);

const app = new Application();
await app.init({
  width: 800,
  height: 600,
  background: '#0e1a2b',
  questPoints: {
    relayUrl: '/api', // your relay (here quest-points' dev relay)
    getToken: tokenFrom('/__dev/token'), // your login route, answering JSON { "token": "..." }
    questId: 'summer',
    serviceUserId: 'dev-player',
    hud: { history: 3 },
  },
});
document.getElementById('game').append(app.canvas); // the HUD follows the canvas into #game

const star = new Graphics().star(400, 300, 5, 60).fill('#fcc419');
star.eventMode = 'static';
star.cursor = 'pointer';
star.on('pointertap', () => app.questPoints.award({ eventPoints: 10, eventName: 'star' }));
app.stage.addChild(star);
