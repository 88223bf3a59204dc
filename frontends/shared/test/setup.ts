// Setup of every screen test file (vitest.config.ts `screens` projects): Testing Library's
// matchers, a clean document and storage after each test.
import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// How long findBy… and waitFor wait for a screen to show what a test expects (Testing Library's
// default: 1 s). A screen here renders after real calls to the services, on 2 cores shared with
// another test file: a whole-system suite beside it made a 1 s wait fail now and then (the Admin
// Panel's counts, the Search's filters) though the screen showed the right thing a moment later.
// Waiting longer changes no assertion: a wrong screen still fails, later.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
  localStorage.clear();
  document.documentElement.removeAttribute('style');
});
