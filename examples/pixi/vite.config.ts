import { defineConfig } from 'vite';
import { questPoints } from 'quest-points/vite';

export default defineConfig({ plugins: [questPoints()] });
