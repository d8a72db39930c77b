// PlayCanvas with quest-points/playcanvas: an ESM Script on an entity makes the client in initialize() and closes it
// when the entity (or the app) is destroyed, and puts the HUD over the app's canvas; a click awards 5 points.
// The page: <div id="game" style="position: relative; width: 800px; height: 600px"></div>
import { Application, Color, Entity, Mouse } from 'playcanvas';
import { QuestPointsScript } from 'quest-points/playcanvas';
import { tokenFrom } from 'quest-points/sw';

const canvas = document.createElement('canvas');
canvas.width = 800;
canvas.height = 600;
document.getElementById('game').append(canvas);
const app = new Application(canvas, { mouse: new Mouse(canvas) });

const camera = new Entity('camera');
camera.addComponent('camera', { clearColor: new Color(0.05, 0.1, 0.17) });
camera.setPosition(0, 0, 5);
app.root.addChild(camera);
// A light: without one the box renders black (its material is lit, and the scene has no light by default).
const light = new Entity('light');
light.addComponent('light', { type: 'directional' });
light.setEulerAngles(45, 30, 0);
app.root.addChild(light);
const box = new Entity('box');
box.addComponent('render', { type: 'box' });
app.root.addChild(box);
app.on('update', (dt) => box.rotate(0, dt * 60, 0));

const game = new Entity('quest-points');
game.addComponent('script');
const questPoints = game.script.create(QuestPointsScript, {
  properties: {
    options: {
      relayUrl: '/api', // your relay (here quest-points' dev relay)
      getToken: tokenFrom('/__dev/token'), // your login route, answering JSON { "token": "..." }
      questId: 'summer',
      serviceUserId: 'dev-player',
    },
  },
});
app.root.addChild(game);
app.mouse.on('mousedown', () => questPoints.questPoints?.award({ eventPoints: 5, eventName: 'box' }));
app.start();
