import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The dashboard is a static bundle served by the service itself (server/http/dashboard.ts). */
export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 900,
  },
});
