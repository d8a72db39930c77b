// LittleJS: the engine's canvases in #game (engineInit's root element), the HUD beside them; a click awards 1 point.
// The page: <div id="game" style="position: relative; width: 800px; height: 600px"></div>
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { tokenFrom } from 'quest-points/sw';
import { drawCircle, engineInit, mouseWasPressed, rgb, setCanvasFixedSize, time, vec2 } from 'littlejsengine';

const qp = createQuestPoints({
  relayUrl: '/api', // your relay (here quest-points' dev relay)
  getToken: tokenFrom('/__dev/token'), // your login route, answering JSON { "token": "..." }
  questId: 'summer',
  serviceUserId: 'dev-player',
});

const game = document.getElementById('game');
setCanvasFixedSize(vec2(800, 600));

function gameInit() {
  attachHud(qp, { parent: game }); // after the engine's canvases, so the HUD is drawn over them
}
function gameUpdate() {
  if (mouseWasPressed(0)) qp.award({ eventPoints: 1, eventName: 'tap' });
}
function gameRender() {
  drawCircle(vec2(Math.sin(time) * 5, 0), 2, rgb(0.99, 0.77, 0.1));
}
engineInit(
  gameInit,
  gameUpdate,
  () => {},
  gameRender,
  () => {},
  [],
  game,
);
