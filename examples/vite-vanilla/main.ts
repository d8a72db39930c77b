// The README quick start, as a page: a coin to click, the SDK awarding 5 points per coin, the HUD over the canvas.
// Run it: `npm run example vite-vanilla` (Vite with quest-points/vite: a dev relay at /api, dev tokens at /__dev/token).
// #region quickstart
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { tokenFrom } from 'quest-points/sw';

const qp = createQuestPoints({
  relayUrl: '/api', // the dev relay of quest-points/vite; in production, your relay's URL
  getToken: tokenFrom('/__dev/token'), // in production, your login route answering JSON { "token": "..." }
  questId: 'summer',
  serviceUserId: 'dev-player', // the token's subject: /__dev/token signs for dev-player unless given ?sub=
});
attachHud(qp, { parent: document.querySelector('#game') ?? document.body }); // live total, a toast per award, online/offline

function collectCoin() {
  qp.award({ eventPoints: 5, eventName: 'coin' }); // returns at once; queued in IndexedDB, works offline
}
document.querySelector('#game')?.addEventListener('click', collectCoin); // in your game: where a coin is collected
// #endregion quickstart

document.getElementById('coin')?.addEventListener('click', collectCoin);

// The "game": a coin that bobs in #game's canvas; clicking it collects it.
const canvas = document.querySelector('canvas');
const ctx = canvas?.getContext('2d');
function draw(time: number) {
  if (!canvas || !ctx) return;
  const y = 180 + Math.sin(time / 300) * 12;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#f5c542';
  ctx.beginPath();
  ctx.arc(320, y, 36, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = '#b8860b';
  ctx.font = 'bold 36px system-ui';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText('5', 320, y + 2);
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
