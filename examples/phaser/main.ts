// Phaser 3.80+ or 4: the plugin makes the client and gives every scene `this.questPoints`; the HUD sits over the canvas.
// Run it: `npm run example phaser`. Click the coin to collect it.
// #region game
import * as Phaser from 'phaser';
import { attachHud } from 'quest-points/hud';
import { questPointsPlugins, type QuestPointsScenePlugin } from 'quest-points/phaser';
import { tokenFrom } from 'quest-points/sw';

class Level extends Phaser.Scene {
  declare questPoints: QuestPointsScenePlugin; // installed by questPointsPlugins()

  create() {
    attachHud(this.questPoints.client, { parent: document.querySelector('#game') ?? document.body });
    const coin = this.add.circle(320, 180, 36, 0xf5c542).setInteractive({ useHandCursor: true });
    this.tweens.add({ targets: coin, y: 165, duration: 600, yoyo: true, repeat: -1, ease: 'Sine.easeInOut' });
    coin.on('pointerdown', () => this.questPoints.award({ eventPoints: 10, eventName: 'coin' }));
    this.questPoints.on('award:sent', () => this.cameras.main.flash(120, 245, 197, 66)); // typed; removed on shutdown
  }
}

new Phaser.Game({
  parent: 'game',
  width: 640,
  height: 360,
  backgroundColor: '#1b2334',
  plugins: questPointsPlugins({ relayUrl: '/api', getToken: tokenFrom('/__dev/token'), questId: 'summer', serviceUserId: 'dev-player' }),
  scene: [Level],
});
// #endregion game
