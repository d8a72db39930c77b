import { attachHud } from '../../src/hud/index.js';
import { startCoinGame } from './coin-game.js';
import { HUD_HTML, mountHud } from './hud.js';
import { rewardFeel } from './reward.js';
import { bindOfflineCheckbox, byId, createPlayerClient } from './session.js';

const { client, offline, player } = createPlayerClient('qp-demo-game');

byId('hud').innerHTML = HUD_HTML;
byId('player').textContent = player;
mountHud(client);
// The player's HUD, in the game: over the canvas, listening to the same client. It is the one that announces the
// total (politely, a sentence at a time), so the side panel's copy of the total stays quiet.
const gameHud = attachHud(client, { parent: byId('stage-box'), toasts: 3 });
byId('hud-total').parentElement?.removeAttribute('aria-live');
bindOfflineCheckbox(byId<HTMLInputElement>('offline-switch'), offline);
rewardFeel(client, byId('stage-box'), byId<HTMLInputElement>('sound'));

const caught = byId('hud-caught');
const params = new URLSearchParams(location.search);
const game = startCoinGame(byId<HTMLCanvasElement>('stage'), {
  autoplay: params.has('autoplay'),
  onCatch(coin) {
    // The SDK persists the award with its idempotency key before anything goes on the wire.
    client.award({
      eventPoints: coin.value,
      eventName: coin.value > 1 ? 'gem_caught' : 'coin_caught',
      eventDescription: `Caught a ${coin.value > 1 ? 'gem' : 'coin'} worth ${coin.value}`,
    });
    caught.dataset.value = String(Number(caught.dataset.value) + 1);
    caught.textContent = caught.dataset.value;
  },
});

const pause = byId<HTMLButtonElement>('pause');
pause.addEventListener('click', () => {
  game.setPaused(!game.paused);
  pause.textContent = game.paused ? 'Resume' : 'Pause';
  pause.setAttribute('aria-pressed', String(game.paused));
});
const autoplay = byId<HTMLInputElement>('autoplay');
autoplay.checked = params.has('autoplay');
autoplay.addEventListener('change', () => game.setAutoplay(autoplay.checked));

// For the browser tests and curious designers: the page's client and game, nothing secret.
Object.assign(window, { questPointsDemo: { client, game, gameHud, offline, player } });
