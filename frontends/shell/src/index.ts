// Async bootstrap: the federation runtime first sets up the shared singletons (React, antd through
// @nrad/shared, the router, the query client), then the app starts.
import('./bootstrap.tsx');
