// Found by test/sidecar/envoy-match.property.test.ts (FC_SEED=3): a request whose value is a wildcard's
// own text (`x*`) landed on the first wildcard in file order that took it (`*`), where envoyproxy/ratelimit
// finds `key_x*` in its map of final keys first, as an exact value.
import { describe, expect, it } from 'vitest';
import { findLimit } from '../../src/sidecar/envoy-match.js';
import { parseEnvoyConfig } from '../../src/sidecar/envoy-yaml.js';

const config = parseEnvoyConfig([
  {
    name: 'w.yaml',
    text: [
      'domain: d',
      'descriptors:',
      '  - key: a',
      '    value: "*"',
      '    rate_limit: { unit: minute, requests_per_unit: 1 }',
      '  - key: a',
      '    value: "x*"',
      '    rate_limit: { unit: minute, requests_per_unit: 2 }',
      '',
    ].join('\n'),
  },
]);

describe('envoy config: a value sent as a wildcard’s own text', () => {
  it('matches that wildcard exactly, before any other wildcard', () => {
    expect(findLimit(config, 'd', [{ key: 'a', value: 'x*' }])?.fullKey).toBe('d.a_x*');
    expect(findLimit(config, 'd', [{ key: 'a', value: 'xy' }])?.fullKey).toBe('d.a_*');
  });
});
