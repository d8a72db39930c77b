// Kaplay: the canvas made in #game (the `root` option), the HUD beside it; a click on the coin awards 5 points.
// The page: <div id="game" style="position: relative; width: 800px; height: 600px"></div>
import kaplay from 'kaplay';
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
const k = kaplay({ width: 800, height: 600, root: game, global: false, background: [14, 26, 43] });
attachHud(qp, { parent: game });

const coin = k.add([k.circle(40), k.pos(400, 300), k.color(252, 196, 25), k.area(), k.anchor('center')]);
coin.onClick(() => qp.award({ eventPoints: 5, eventName: 'coin' }));
