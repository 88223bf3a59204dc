// Setup of every screen test file (vitest.config.ts `screens` projects): Testing Library's
// matchers, a clean document and storage after each test.
import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
  localStorage.clear();
  document.documentElement.removeAttribute('style');
});
