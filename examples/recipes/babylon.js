// Babylon.js with quest-points/babylon: a Behavior on the camera makes the client when attached and closes it when
// the scene goes, and puts the HUD over the engine's canvas; a click on the box awards 10 points.
// The page: <div id="game" style="position: relative; width: 800px; height: 600px"></div>
import { Engine, FreeCamera, HemisphericLight, MeshBuilder, Scene, Vector3 } from '@babylonjs/core';
import { QuestPointsBehavior } from 'quest-points/babylon';
import { tokenFrom } from 'quest-points/sw';

const canvas = document.createElement('canvas');
canvas.style.cssText = 'width: 800px; height: 600px; display: block';
document.getElementById('game').append(canvas);
const engine = new Engine(canvas, true);
const scene = new Scene(engine);
const camera = new FreeCamera('camera', new Vector3(0, 2, -6), scene);
camera.setTarget(Vector3.Zero());
new HemisphericLight('light', new Vector3(0, 1, 0), scene);
const box = MeshBuilder.CreateBox('box', { size: 2 }, scene);

const questPoints = new QuestPointsBehavior({
  relayUrl: '/api', // your relay (here quest-points' dev relay)
  getToken: tokenFrom('/__dev/token'), // your login route, answering JSON { "token": "..." }
  questId: 'summer',
  serviceUserId: 'dev-player',
});
camera.addBehavior(questPoints);

scene.onPointerDown = (_event, pick) => {
  if (pick.pickedMesh === box) questPoints.questPoints?.award({ eventPoints: 10, eventName: 'box' });
};
engine.runRenderLoop(() => {
  box.rotation.y += 0.01;
  scene.render();
});
