import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Served by svc at /console (src/http/console.ts): hashed assets under /console/assets/, cached for a year.
// No inline script: the page's CSP is script-src 'self' (the module preload polyfill would be inline).
export default defineConfig(({ command, mode }) => {
  // `npm run build` inside a test run inherits NODE_ENV=test, which would give React's development build and
  // development JSX (larger, slower, and not what is served): a production build is built for production.
  if (command === 'build' && mode === 'production') process.env.NODE_ENV = 'production';
  return {
    root: here('.'),
    base: '/console/',
    plugins: [react()],
    resolve: { alias: { '@svc/client': here('../client/src/index.ts') } },
    build: {
      outDir: here('dist'),
      emptyOutDir: true,
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
      sourcemap: false,
      reportCompressedSize: false,
    },
  };
});
