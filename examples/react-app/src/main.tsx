import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { OpenAccount } from './OpenAccount';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <OpenAccount />
  </StrictMode>,
);
