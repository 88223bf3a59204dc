// Async bootstrap, as in every federated app: the shared singletons are set up before any code
// that uses them runs. Opened on its own, the remote only points to the app.
import('./bootstrap.tsx');
