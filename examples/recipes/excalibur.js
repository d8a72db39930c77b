// Excalibur: the engine on a canvas in #game, the HUD beside it; a click on the gem awards 3 points.
// The page: <div id="game" style="position: relative; width: 800px; height: 600px"></div>
import { Actor, Color, DisplayMode, Engine, vec } from 'excalibur';
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { tokenFrom } from 'quest-points/sw';

const qp = createQuestPoints({
  relayUrl: '/api', // your relay (here quest-points' dev relay)
  getToken: tokenFrom('/__dev/token'), // your login route, answering JSON { "token": "..." }
  questId: 'summer',
  serviceUserId: 'dev-player',
});

const game = document.getElementById('game');
const canvas = document.createElement('canvas');
game.append(canvas);
attachHud(qp, { parent: game });

const engine = new Engine({ canvasElement: canvas, width: 800, height: 600, displayMode: DisplayMode.Fixed, suppressPlayButton: true });
const gem = new Actor({ pos: vec(400, 300), radius: 40, color: Color.fromHex('#63e6be') });
gem.on('pointerdown', () => qp.award({ eventPoints: 3, eventName: 'gem' }));
engine.add(gem);
await engine.start();
