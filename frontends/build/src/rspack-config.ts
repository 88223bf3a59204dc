/**
 * The rspack configuration of an NRAD frontend (shell or remote), from its FrontendDefinition.
 * TypeScript and JSX through SWC (workspace packages such as @nrad/shared are compiled from
 * source too), module federation with the shared dependencies of shared-deps.ts, hashed file
 * names for everything but the entry files, production builds only (the gateway serves them).
 */
import path from 'node:path';
import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { HASH_LENGTH, REMOTE_MANIFEST_FILE } from '@nrad/contracts';
import { type Configuration, rspack } from '@rspack/core';
import type { FrontendDefinition } from './frontend.ts';
import { sharedDependencies } from './shared-deps.ts';

const html = (title: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <link rel="icon" href="data:," />
    <style>
      html, body { margin: 0; height: 100%; font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; }
      #boot { display: flex; height: 100%; align-items: center; justify-content: center; }
      #boot span { width: 32px; height: 32px; border: 3px solid #d9d9d9; border-top-color: #1677ff; border-radius: 50%; animation: nrad-spin 0.8s linear infinite; }
      @keyframes nrad-spin { to { transform: rotate(360deg); } }
    </style>
  </head>
  <body>
    <noscript>NRAD needs JavaScript.</noscript>
    <div id="root"><div id="boot" role="status" aria-label="Loading"><span></span></div></div>
  </body>
</html>
`;

export function rspackConfig(definition: FrontendDefinition, appDir: string): Configuration {
  const host = definition.kind === 'host';
  const hashed = `[name].[contenthash:${HASH_LENGTH}].js`;
  const fileName = host ? `assets/${hashed}` : hashed;
  return {
    mode: 'production',
    context: appDir,
    target: ['web', 'es2022'],
    entry: { main: './src/index.ts' },
    output: {
      path: path.join(appDir, 'dist'),
      // The shell lives at /; a remote works wherever the manifest says it is.
      publicPath: host ? '/' : 'auto',
      filename: fileName,
      chunkFilename: fileName,
      cssFilename: fileName.replace(/js$/, 'css'),
      uniqueName: `nrad_${definition.name.replace(/-/g, '_')}`,
      clean: true,
    },
    resolve: { extensions: ['.tsx', '.ts', '.mjs', '.js'] },
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          exclude: /node_modules/,
          loader: 'builtin:swc-loader',
          options: {
            jsc: {
              parser: { syntax: 'typescript', tsx: true },
              transform: { react: { runtime: 'automatic' } },
            },
          },
          type: 'javascript/auto',
        },
      ],
    },
    plugins: [
      new ModuleFederationPlugin({
        name: definition.name.replace(/-/g, '_'),
        ...(host ? { remotes: {} } : { filename: 'remoteEntry.js', exposes: { ...definition.exposes } }),
        shared: sharedDependencies(appDir, definition.kind),
        manifest: host ? false : { fileName: REMOTE_MANIFEST_FILE },
        dts: false,
      }),
      ...(host
        ? [new rspack.HtmlRspackPlugin({ templateContent: html(definition.title ?? 'NRAD'), inject: 'body' })]
        : []),
    ],
    optimization: { minimize: true },
    devtool: 'hidden-source-map',
    performance: { hints: false },
    stats: 'errors-warnings',
  };
}
