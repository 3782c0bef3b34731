import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PAGE_FILES } from './bundle.js';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
};

// The page runs only its own scripts; Plot sets inline style attributes on its SVG.
const CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

export interface ExplorerServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves the explorer page from `root` (the folder buildExplorer wrote): its four files, read once at
 * start, and nothing else. The page does all its work in the browser, so the server has none.
 */
export async function startExplorerServer(opts: {
  root: string;
  port: number;
  host: string;
}): Promise<ExplorerServer> {
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const f of PAGE_FILES) {
    files.set(`/${f}`, {
      body: readFileSync(join(opts.root, f)),
      type: TYPES[f.slice(f.lastIndexOf('.') + 1)],
    });
  }
  files.set('/', files.get('/index.html')!);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = files.get(path);
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { ...headers, allow: 'GET, HEAD', 'content-type': 'text/plain' })
        .end('method not allowed\n');
      return;
    }
    if (file === undefined) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, {
      ...headers,
      'content-type': file.type,
      'content-length': file.body.length,
      'content-security-policy': CSP,
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
