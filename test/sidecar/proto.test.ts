// The vendored proto's wire format is Envoy's: every field the sidecar reads or writes has the number
// and type of envoyproxy/envoy api/envoy/service/ratelimit/v3/rls.proto and
// api/envoy/extensions/common/ratelimit/v3/ratelimit.proto (checked by hand against them, issue 22;
// see src/sidecar/proto/NOTICE.md). A renumbered field would still round-trip with our own client,
// so only this table catches it.
import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { LOADER_OPTIONS, RLS_PROTO } from '../../src/sidecar/grpc-server.js';

interface Field {
  name: string;
  number: number;
  type: string;
  typeName: string;
}
interface Message {
  field: Field[];
  nestedType: (Message & { name: string })[];
}

/** Each message's fields as `name = number type` (type names as the loader gives them, relative to `envoy.`), nested messages by their dotted path. */
const ENVOY: Record<string, string[]> = {
  'envoy.service.ratelimit.v3.RateLimitRequest': [
    'domain = 1 TYPE_STRING',
    'descriptors = 2 TYPE_MESSAGE extensions.common.ratelimit.v3.RateLimitDescriptor',
    'hits_addend = 3 TYPE_UINT32',
  ],
  'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor': [
    'entries = 1 TYPE_MESSAGE Entry',
    'limit = 2 TYPE_MESSAGE RateLimitOverride',
    // per-descriptor hits (Envoy PR 37567, Dec 2024): field 3, a UInt64Value
    'hits_addend = 3 TYPE_MESSAGE google.protobuf.UInt64Value',
    // refunds (newer Envoy): the next field after hits_addend (NOTICE.md says how it was taken)
    'is_negative_hits = 4 TYPE_BOOL',
  ],
  'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry': [
    'key = 1 TYPE_STRING',
    'value = 2 TYPE_STRING',
  ],
  'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride': [
    'requests_per_unit = 1 TYPE_UINT32',
    'unit = 2 TYPE_ENUM type.v3.RateLimitUnit',
  ],
  'envoy.service.ratelimit.v3.RateLimitResponse': [
    'overall_code = 1 TYPE_ENUM Code',
    'statuses = 2 TYPE_MESSAGE DescriptorStatus',
    'response_headers_to_add = 3 TYPE_MESSAGE config.core.v3.HeaderValue',
    'request_headers_to_add = 4 TYPE_MESSAGE config.core.v3.HeaderValue',
    'raw_body = 5 TYPE_BYTES',
    'dynamic_metadata = 6 TYPE_MESSAGE google.protobuf.Struct',
    'quota = 7 TYPE_MESSAGE Quota',
  ],
  'envoy.service.ratelimit.v3.RateLimitResponse.RateLimit': [
    'name = 3 TYPE_STRING',
    'requests_per_unit = 1 TYPE_UINT32',
    'unit = 2 TYPE_ENUM Unit',
  ],
  'envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus': [
    'code = 1 TYPE_ENUM Code',
    'current_limit = 2 TYPE_MESSAGE RateLimit',
    'limit_remaining = 3 TYPE_UINT32',
    'duration_until_reset = 4 TYPE_MESSAGE google.protobuf.Duration',
    'quota = 5 TYPE_MESSAGE Quota',
  ],
  'envoy.service.ratelimit.v3.RateLimitResponse.Quota': [
    'requests = 1 TYPE_UINT32',
    'valid_until = 2 TYPE_MESSAGE google.protobuf.Timestamp',
    'id = 3 TYPE_STRING',
  ],
  'envoy.config.core.v3.HeaderValue': [
    'key = 1 TYPE_STRING',
    'value = 2 TYPE_STRING',
    'raw_value = 3 TYPE_BYTES',
  ],
};

describe('src/sidecar/proto: Envoy’s field numbers and types', () => {
  const def = protoLoader.loadSync(RLS_PROTO, LOADER_OPTIONS) as unknown as Record<string, { type: Message }>;
  const message = (path: string): Message => {
    const parts = path.split('.');
    for (let top = parts.length; top > 0; top--) {
      const outer = def[parts.slice(0, top).join('.')];
      if (outer === undefined) continue;
      let m: Message = outer.type;
      for (const name of parts.slice(top)) {
        const inner = m.nestedType.find((n) => n.name === name);
        if (inner === undefined) throw new Error(`${path}: no nested ${name}`);
        m = inner;
      }
      return m;
    }
    throw new Error(`no message ${path}`);
  };
  for (const [path, fields] of Object.entries(ENVOY)) {
    it(path, () => {
      expect(
        message(path).field.map(
          (f) => `${f.name} = ${f.number} ${f.type}${f.typeName ? ` ${f.typeName}` : ''}`,
        ),
      ).toEqual(fields);
    });
  }
});
