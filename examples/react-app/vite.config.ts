import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev`: the partner's own server (examples/partner-backend, port 8790) answers /kyc/*.
export default defineConfig({
  plugins: [react()],
  logLevel: 'warn',
  server: { proxy: { '/kyc': 'http://127.0.0.1:8790' } },
});
