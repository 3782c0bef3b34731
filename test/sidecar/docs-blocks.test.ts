// The configurations docs/nginx.md and docs/envoy.md show are, character for character, the files the
// tests run: docs/examples/nginx.conf (test/sidecar/nginx.live.test.ts), sidecar-nginx.json (the
// NGINX test's sidecars), sidecar-envoy.json (test/sidecar/grpc.live.test.ts) and envoy.json
// (test/sidecar/envoy-config.test.ts), envoy-ratelimit/edge.yaml and sidecar.json
// (test/sidecar/envoy-limits.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../docs/doc-blocks.js';

const BLOCKS = [
  { doc: 'docs/nginx.md', file: 'docs/examples/nginx.conf', lang: 'nginx' },
  { doc: 'docs/nginx.md', file: 'docs/examples/sidecar-nginx.json', lang: 'json' },
  { doc: 'docs/envoy.md', file: 'docs/examples/sidecar-envoy.json', lang: 'json' },
  { doc: 'docs/envoy.md', file: 'docs/examples/envoy.json', lang: 'jsonc' },
  { doc: 'docs/envoy.md', file: 'docs/examples/envoy-ratelimit/edge.yaml', lang: 'yaml' },
  { doc: 'docs/envoy.md', file: 'docs/examples/envoy-ratelimit/sidecar.json', lang: 'json' },
];

describe('the sidecar pages show the configurations the tests run', () => {
  for (const b of BLOCKS) {
    it(`${b.doc} holds ${b.file} as a \`\`\`${b.lang} block`, () => {
      const doc = readFileSync(join(ROOT, b.doc), 'utf8');
      const file = readFileSync(join(ROOT, b.file), 'utf8');
      expect(doc.includes(`\`\`\`${b.lang}\n${file}\`\`\`\n`), `copy ${b.file} into ${b.doc} again`).toBe(
        true,
      );
    });
  }
});
