import * as Phaser from 'phaser';
import type { PointsView } from '../../src/client/index.js';
import { questPointsPlugins, type QuestPointsScenePlugin } from '../../src/phaser/index.js';
import { HUD_HISTORY, HUD_HTML, historyLine, mountHud } from './hud.js';
import { bindOfflineCheckbox, byId, createPlayerClient, formatPoints } from './session.js';

// The page makes the client so the DOM HUD can share it; `data: { relayUrl, getToken, ... }` works too.
const { client, offline, player } = createPlayerClient('qp-demo-phaser');

const WIDTH = 480;
const HEIGHT = 640;
const params = new URLSearchParams(location.search);
let autoplay = params.has('autoplay');
/** The scene's art: small SVGs drawn for the demo (demo/public/sprites), loaded at the size they are shown. */
const SPRITES = {
  sky: { width: WIDTH, height: HEIGHT },
  coin: { width: 28, height: 28 },
  gem: { width: 30, height: 30 },
  basket: { width: 104, height: 44 },
  spark: { width: 14, height: 14 },
} as const;
const still = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

class CatchScene extends Phaser.Scene {
  /** Injected by the scene plugin's `mapping`: the SDK's typed events, removed when the scene shuts down. */
  declare questPoints: QuestPointsScenePlugin;
  private basket!: Phaser.GameObjects.Image;
  private coins!: Phaser.GameObjects.Group;
  private pointsText!: Phaser.GameObjects.Text;
  private historyText!: Phaser.GameObjects.Text;
  private cursors?: Phaser.Types.Input.Keyboard.CursorKeys;
  caught = 0;
  /** The "+N" texts still floating (tests read them). */
  floats: Phaser.GameObjects.Text[] = [];

  constructor() {
    super('catch');
  }

  preload() {
    // Relative to the page, so a build under a sub-path (the docs site's /demo/) finds them too.
    this.load.setPath('sprites/');
    for (const [key, size] of Object.entries(SPRITES)) this.load.svg(key, `${key}.svg`, size);
  }

  create() {
    this.add.image(0, 0, 'sky').setOrigin(0);
    this.basket = this.add.image(WIDTH / 2, HEIGHT - 40, 'basket').setOrigin(0.5, 0.3);
    this.coins = this.add.group();
    this.pointsText = this.add.text(16, 14, 'Points: …', { fontFamily: 'system-ui, sans-serif', fontSize: '24px', color: '#ffffff' });
    this.historyText = this.add.text(16, 48, '', { fontFamily: 'system-ui, sans-serif', fontSize: '14px', color: '#c5d0e6', lineSpacing: 2 });
    this.cursors = this.input.keyboard?.createCursorKeys();
    this.time.addEvent({ delay: 650, loop: true, callback: () => this.spawn() });

    // Live from the client's own pair: no read in game code. The listener goes when the scene shuts down.
    this.showPoints(this.questPoints.viewPoints());
    this.questPoints.on('points:changed', ({ view }) => this.showPoints(view));
  }

  private showPoints(view: PointsView) {
    if (view.serviceUserId !== player) return;
    const unconfirmed = view.pendingPoints + view.sentPoints;
    const pending = unconfirmed ? ` (${formatPoints(unconfirmed)} not yet confirmed)` : '';
    this.pointsText.setText(`Points: ${formatPoints(view.totalPoints)}${pending}`);
    this.historyText.setText(view.history.slice(0, HUD_HISTORY).map((entry) => `${historyLine(entry)}  · ${entry.state}`));
    // The canvas is opaque to screen readers: mirror the scene's text in a live region.
    const live = byId('scene-points');
    live.textContent = `Scene shows ${formatPoints(view.totalPoints)} points`;
    live.dataset.value = String(view.totalPoints);
  }

  /** A "+N" that rises from the catch point and fades: the game's own feedback, drawn in the scene. */
  private floatPoints(x: number, y: number, points: number) {
    const text = this.add
      .text(x, y, `+${formatPoints(points)}`, {
        fontFamily: 'system-ui, sans-serif',
        fontSize: points > 1 ? '26px' : '20px',
        fontStyle: 'bold',
        color: points > 1 ? '#63e6be' : '#fcc419',
      })
      .setOrigin(0.5, 1)
      .setStroke('#0e1a2b', 4);
    this.floats.push(text);
    // Under prefers-reduced-motion it fades where it appeared instead of rising, and no sparks fly.
    const calm = still();
    if (!calm) {
      const sparks = this.add.particles(x, y, 'spark', {
        speed: { min: 80, max: 220 },
        angle: { min: 200, max: 340 },
        gravityY: 320,
        lifespan: 550,
        scale: { start: 1, end: 0.2 },
        alpha: { start: 1, end: 0 },
        tint: points > 1 ? 0x63e6be : 0xfcc419,
        emitting: false,
      });
      sparks.explode(points > 1 ? 18 : 10);
      this.time.delayedCall(700, () => sparks.destroy());
    }
    this.tweens.add({
      targets: text,
      y: calm ? y : y - 56,
      alpha: 0,
      duration: 900,
      ease: 'Cubic.easeOut',
      onComplete: () => {
        this.floats.splice(this.floats.indexOf(text), 1);
        text.destroy();
      },
    });
  }

  private spawn() {
    const gem = Math.random() < 0.12;
    const coin = this.add.image(24 + Math.random() * (WIDTH - 48), -16, gem ? 'gem' : 'coin');
    coin.setData({ value: gem ? 5 : 1, speed: 170 + Math.random() * 110 });
    // A little life while it falls: a coin spins (its width breathes), a gem sways.
    if (!still())
      this.tweens.add(
        gem
          ? { targets: coin, angle: { from: -12, to: 12 }, duration: 500, yoyo: true, repeat: -1, ease: 'Sine.easeInOut' }
          : { targets: coin, scaleX: { from: 1, to: 0.25 }, duration: 320, yoyo: true, repeat: -1, ease: 'Sine.easeInOut' },
      );
    this.coins.add(coin);
  }

  /** A caught or missed coin goes with its spin or sway. */
  private drop(coin: Phaser.GameObjects.Image) {
    this.tweens.killTweensOf(coin);
    coin.destroy();
  }

  override update(_time: number, deltaMs: number) {
    const dt = Math.min(0.05, deltaMs / 1000);
    const coins = this.coins.getChildren() as Phaser.GameObjects.Image[];
    let dx = 0;
    if (autoplay) {
      const target = coins.filter((c) => c.y < this.basket.y).sort((a, b) => b.y - a.y)[0];
      if (target) dx = Math.sign(target.x - this.basket.x) * Math.min(Math.abs(target.x - this.basket.x), 830 * dt);
    } else if (this.cursors) {
      dx = ((this.cursors.right.isDown ? 1 : 0) - (this.cursors.left.isDown ? 1 : 0)) * 520 * dt;
    }
    this.basket.x = Phaser.Math.Clamp(this.basket.x + dx, 48, WIDTH - 48);
    for (const coin of coins) {
      const before = coin.y;
      coin.y += (coin.getData('speed') as number) * dt;
      if (before < this.basket.y && coin.y >= this.basket.y && Math.abs(coin.x - this.basket.x) <= 58) {
        const value = coin.getData('value') as number;
        this.questPoints.award({
          eventPoints: value,
          eventName: value > 1 ? 'gem_caught' : 'coin_caught',
          eventDescription: 'Caught in the Phaser scene',
        });
        this.floatPoints(coin.x, this.basket.y - 16, value);
        this.caught += 1;
        const caught = byId('hud-caught');
        caught.textContent = caught.dataset.value = String(this.caught);
        this.drop(coin);
      } else if (coin.y > HEIGHT + 20) {
        this.drop(coin);
      }
    }
  }
}

byId('hud').innerHTML = HUD_HTML;
byId('player').textContent = player;
mountHud(client);
bindOfflineCheckbox(byId<HTMLInputElement>('offline-switch'), offline);
const autoplaySwitch = byId<HTMLInputElement>('autoplay');
autoplaySwitch.checked = autoplay;
autoplaySwitch.addEventListener('change', () => (autoplay = autoplaySwitch.checked));

const game = new Phaser.Game({
  type: Phaser.AUTO,
  parent: 'phaser-stage',
  width: WIDTH,
  height: HEIGHT,
  backgroundColor: '#0b1426',
  scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.CENTER_HORIZONTALLY },
  plugins: questPointsPlugins({ client }),
  scene: [CatchScene],
});

Object.assign(window, { questPointsDemo: { client, game, offline, player } });
