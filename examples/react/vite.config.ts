import { defineConfig } from 'vite';
import { questPoints } from 'quest-points/vite';

// React's JSX is compiled by Vite itself (esbuild/oxc); no React plugin is needed for this example.
export default defineConfig({ plugins: [questPoints()] });
