// Babylon.js from @babylonjs/core: a scene with a camera carrying QuestPointsBehavior (attach when added, detach
// when the engine and so the scene and camera are disposed).
import './timers.js';
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { Engine } from '@babylonjs/core/Engines/engine.js';
import { HemisphericLight } from '@babylonjs/core/Lights/hemisphericLight.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { Scene } from '@babylonjs/core/scene.js';
import { QuestPointsBehavior } from '../../../src/babylon/index.js';
import { expose, pluginOptions, stage } from './engine-page.js';

expose(async () => {
  const canvas = document.createElement('canvas');
  canvas.style.cssText = 'width:480px;height:320px;display:block';
  const parent = stage();
  parent.append(canvas);
  const engine = new Engine(canvas, true);
  const scene = new Scene(engine);
  const camera = new FreeCamera('camera', new Vector3(0, 2, -6), scene);
  camera.setTarget(Vector3.Zero());
  new HemisphericLight('light', new Vector3(0, 1, 0), scene);
  const box = CreateBox('box', { size: 1.5 }, scene);
  const questPoints = new QuestPointsBehavior(pluginOptions);
  camera.addBehavior(questPoints);
  engine.runRenderLoop(() => {
    box.rotation.y += 0.02;
    scene.render();
  });
  return {
    binding: () => questPoints.questPoints,
    destroy: () => engine.dispose(),
    canvas,
    webgl: () => !engine.isDisposed && engine.webGLVersion >= 1,
  };
});
