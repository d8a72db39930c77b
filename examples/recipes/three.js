// Three.js: the HUD over renderer.domElement; a click on the cube awards 10 points.
// The page: <div id="game" style="position: relative; width: 800px; height: 600px"></div>
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { tokenFrom } from 'quest-points/sw';
import { BoxGeometry, Mesh, MeshNormalMaterial, PerspectiveCamera, Raycaster, Scene, Vector2, WebGLRenderer } from 'three';

const qp = createQuestPoints({
  relayUrl: '/api', // your relay (here quest-points' dev relay)
  getToken: tokenFrom('/__dev/token'), // your login route, answering JSON { "token": "..." }
  questId: 'summer',
  serviceUserId: 'dev-player',
});

const game = document.getElementById('game');
const renderer = new WebGLRenderer({ antialias: true });
renderer.setSize(800, 600);
game.append(renderer.domElement);
attachHud(qp, { parent: game }); // the canvas and the element in one positioned container

const scene = new Scene();
const camera = new PerspectiveCamera(60, 800 / 600, 0.1, 100);
camera.position.z = 4;
const cube = new Mesh(new BoxGeometry(1.5, 1.5, 1.5), new MeshNormalMaterial());
scene.add(cube);
renderer.setAnimationLoop(() => {
  cube.rotation.x += 0.01;
  cube.rotation.y += 0.02;
  renderer.render(scene, camera);
});

const raycaster = new Raycaster();
renderer.domElement.addEventListener('pointerdown', (event) => {
  const { left, top, width, height } = renderer.domElement.getBoundingClientRect();
  raycaster.setFromCamera(new Vector2(((event.clientX - left) / width) * 2 - 1, -((event.clientY - top) / height) * 2 + 1), camera);
  if (raycaster.intersectObject(cube).length > 0) qp.award({ eventPoints: 10, eventName: 'cube' });
});
