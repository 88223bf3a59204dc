// Async bootstrap, as in every federated app (see the settings remote).
import('./bootstrap.tsx');
