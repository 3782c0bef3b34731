// One envoyproxy/ratelimit YAML file checked as that service reads it: its domain, its descriptor
// tree and rate_limit blocks, every problem recorded with its line and field, none thrown.
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, type YAMLMap } from 'yaml';
import { MAX_WINDOW_MS } from '../config.js';
import {
  type DescriptorLevel,
  type DescriptorNode,
  type EnvoyConfigIssue,
  MAX_DEPTH,
  UNITS,
  USABLE_UNITS,
  type YamlLimit,
} from './envoy-config.js';

const ROOT_FIELDS = ['domain', 'descriptors'];
const DESCRIPTOR_FIELDS = ['key', 'value', 'rate_limit', 'descriptors', 'shadow_mode', 'detailed_metric'];
const RATE_LIMIT_FIELDS = ['unit', 'requests_per_unit', 'unlimited', 'name', 'replaces'];
const REPLACES_FIELDS = ['name'];
const UINT32_MAX = 4_294_967_295;

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return d[b.length];
}

/** A map's values by field name, and each field's key (whose line a block value is named by). */
class FieldMap extends Map<string, Node | null> {
  readonly keyNodes = new Map<string, Node>();
  /** Known fields an unknown one was taken for a misspelling of: not reported missing as well. */
  readonly suggested = new Set<string>();
}

/** One file's checker: each problem recorded with its line, none thrown until the end. */
export class FileReader {
  readonly issues: EnvoyConfigIssue[] = [];
  private readonly lines = new LineCounter();
  readonly limits: YamlLimit[] = [];

  constructor(
    readonly file: string,
    private readonly text: string,
  ) {}

  private lineOf(node: Node | null | undefined, fallback = 1): number {
    const at = node?.range?.[0];
    return at === undefined ? fallback : this.lines.linePos(at).line;
  }

  private issue(node: Node | null | undefined, field: string, message: string, line?: number): void {
    this.issues.push({ file: this.file, line: line ?? this.lineOf(node), field, message });
  }

  /** The map's values by field name; an unknown field named, with the known one it is likely a misspelling of. */
  private fields(map: YAMLMap, at: string, known: readonly string[], what: string): FieldMap {
    const out = new FieldMap();
    for (const pair of map.items) {
      const k = pair.key as Node | null;
      const name = isScalar(k) ? String(k.value) : null;
      if (name === null || !known.includes(name)) {
        const shown = name ?? String(k);
        const near = known.find((f) => editDistance(f, shown) <= 2);
        if (near !== undefined) out.suggested.add(near);
        this.issue(
          k,
          `${at}${at === '' ? '' : '.'}${shown}`,
          `is not a field of ${what}${near === undefined ? '' : ` (did you mean "${near}"?)`}; its fields: ${known.join(', ')}`,
        );
        continue;
      }
      out.set(name, (pair.value as Node | null) ?? null);
      out.keyNodes.set(name, k as Node);
    }
    return out;
  }

  /** A scalar as the service's YAML decoder gives it to a string field: its text as written. */
  private text_(node: Node | null, field: string): string | null {
    if (node === null || (isScalar(node) && node.value === null)) return '';
    if (!isScalar(node)) {
      this.issue(node, field, 'must be a string');
      return null;
    }
    if (typeof node.value === 'string') return node.value;
    return (node.source as string | undefined) ?? String(node.value);
  }

  private bool(node: Node | null, field: string): boolean {
    if (node === null || (isScalar(node) && node.value === null)) return false;
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    this.issue(node, field, `must be true or false, got ${JSON.stringify(String(node))}`);
    return false;
  }

  read(): { domain: string; top: DescriptorLevel } | null {
    const doc = parseDocument(this.text, { lineCounter: this.lines, version: '1.1', uniqueKeys: true });
    for (const e of doc.errors) {
      const line = this.lines.linePos(e.pos[0]).line;
      // the parser's message without its own "at line …" and excerpt: the line is given once, in front
      const message = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      this.issue(null, '(yaml)', message, line);
    }
    if (doc.errors.length > 0) return null;
    const root = doc.contents as Node | null;
    if (!isMap(root)) {
      this.issue(root, '(file)', 'must be a map with "domain" and "descriptors"');
      return null;
    }
    const f = this.fields(root, '', ROOT_FIELDS, 'the file (its top level)');
    const domain = this.text_(f.get('domain') ?? null, 'domain');
    if (domain === '') this.issue(f.get('domain') ?? root, 'domain', 'is required and must not be empty');
    const top = this.level(f.get('descriptors') ?? null, 'descriptors', domain ?? '', [], 1);
    return domain === null || domain === '' ? null : { domain, top };
  }

  private level(
    node: Node | null,
    at: string,
    domain: string,
    path: readonly (readonly [string, string])[],
    depth: number,
  ): DescriptorLevel {
    const level: DescriptorLevel = { exact: new Map(), byKey: new Map(), wildcards: [] };
    if (node === null || (isScalar(node) && node.value === null)) return level;
    if (!isSeq(node)) {
      this.issue(node, at, 'must be a list of descriptors (each with a "key")');
      return level;
    }
    if (depth > MAX_DEPTH) {
      this.issue(
        node,
        at,
        `nests deeper than ${MAX_DEPTH} levels (a descriptor has at most ${MAX_DEPTH} entries)`,
      );
      return level;
    }
    // the service's own map key at a level: key, or key_value; two descriptors with one are a duplicate
    const seen = new Map<string, number>();
    node.items.forEach((item, i) => {
      const here = `${at}[${i}]`;
      if (!isMap(item)) {
        this.issue(
          item as Node,
          here,
          'must be a map with "key" (and optionally "value", "rate_limit", "descriptors")',
        );
        return;
      }
      const f = this.fields(item, here, DESCRIPTOR_FIELDS, 'a descriptor');
      const key = this.text_(f.get('key') ?? null, `${here}.key`);
      if (key === '') this.issue(f.get('key') ?? item, `${here}.key`, 'is required and must not be empty');
      const value = this.text_(f.get('value') ?? null, `${here}.value`) ?? '';
      if (key === null || key === '') return;
      const composite = value === '' ? key : `${key}_${value}`;
      const first = seen.get(composite);
      if (first !== undefined) {
        this.issue(
          f.get('value') ?? f.get('key') ?? item,
          value === '' ? `${here}.key` : `${here}.value`,
          `duplicates the descriptor at line ${first} (key ${JSON.stringify(key)}${value === '' ? ', no value' : `, value ${JSON.stringify(value)}`}): each key and value once per level`,
        );
        return;
      }
      seen.set(composite, this.lineOf(item));
      const p = [...path, [key, value] as const];
      const shadowMode = this.bool(f.get('shadow_mode') ?? null, `${here}.shadow_mode`);
      const detailedMetric = this.bool(f.get('detailed_metric') ?? null, `${here}.detailed_metric`);
      const rl = f.get('rate_limit') ?? null;
      const limit =
        rl === null
          ? null
          : this.rateLimit(
              rl,
              f.keyNodes.get('rate_limit') as Node,
              `${here}.rate_limit`,
              domain,
              p,
              shadowMode,
              detailedMetric,
            );
      const children = this.level(f.get('descriptors') ?? null, `${here}.descriptors`, domain, p, depth + 1);
      const nested = children.exact.size + children.byKey.size + children.wildcards.length > 0;
      const n: DescriptorNode = { ...children, limit, nested };
      if (value === '') level.byKey.set(key, n);
      else {
        // a wildcard is also its own exact value: a request sending `foo*` itself lands on it first (as
        // in the service's one map of final keys), before any other wildcard that would take it
        level.exact.set(`${key}\u0000${value}`, n);
        if (value.endsWith('*')) level.wildcards.push({ key, prefix: value.slice(0, -1), node: n });
      }
    });
    return level;
  }

  private rateLimit(
    node: Node,
    keyNode: Node,
    at: string,
    domain: string,
    path: readonly (readonly [string, string])[],
    shadowMode: boolean,
    detailedMetric: boolean,
  ): YamlLimit | null {
    if (!isMap(node)) {
      this.issue(node, at, 'must be a map with "unit" and "requests_per_unit" (or "unlimited: true")');
      return null;
    }
    const before = this.issues.length;
    const f = this.fields(node, at, RATE_LIMIT_FIELDS, 'a rate_limit');
    const unlimited = this.bool(f.get('unlimited') ?? null, `${at}.unlimited`);
    const unitNode = f.get('unit') ?? null;
    const unitText = this.text_(unitNode, `${at}.unit`) ?? '';
    const unit = UNITS[unitText.toLowerCase()];
    let windowMs = 0;
    if (unlimited) {
      if (unit !== undefined)
        this.issue(
          unitNode,
          `${at}.unit`,
          'must not be given with "unlimited: true" (as envoyproxy/ratelimit)',
        );
    } else if (unit === undefined) {
      this.issue(
        unitNode ?? keyNode,
        `${at}.unit`,
        unitText === ''
          ? `is required: one of ${USABLE_UNITS}`
          : `${JSON.stringify(unitText)} is not a unit: one of ${USABLE_UNITS}`,
      );
    } else if (unit.windowMs > MAX_WINDOW_MS) {
      this.issue(
        unitNode,
        `${at}.unit`,
        `${unitText} (${unit.windowMs / 86_400_000} days, as envoyproxy/ratelimit counts it) is longer than a fleetlimit window can be (${MAX_WINDOW_MS} ms, 24.8 days): use week or shorter`,
      );
    } else windowMs = unit.windowMs;
    const rpuNode = f.get('requests_per_unit') ?? null;
    let requestsPerUnit = 0;
    if (rpuNode !== null) {
      const v = isScalar(rpuNode) ? rpuNode.value : undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > UINT32_MAX) {
        this.issue(
          rpuNode,
          `${at}.requests_per_unit`,
          `must be an integer from 0 to ${UINT32_MAX}, got ${JSON.stringify(String(rpuNode))}`,
        );
      } else requestsPerUnit = v;
    } else if (!unlimited && !f.suggested.has('requests_per_unit')) {
      this.issue(keyNode, `${at}.requests_per_unit`, 'is required (0 refuses every request)');
    }
    const name = this.text_(f.get('name') ?? null, `${at}.name`) ?? '';
    const replaces: string[] = [];
    const rep = f.get('replaces') ?? null;
    if (rep !== null && !(isScalar(rep) && rep.value === null)) {
      if (!isSeq(rep)) this.issue(rep, `${at}.replaces`, 'must be a list of { name: … }');
      else {
        rep.items.forEach((r, i) => {
          const here = `${at}.replaces[${i}]`;
          if (!isMap(r)) {
            this.issue(r as Node, here, 'must be a map with "name"');
            return;
          }
          const rf = this.fields(r, here, REPLACES_FIELDS, 'a replaces entry');
          const n = this.text_(rf.get('name') ?? null, `${here}.name`);
          if (n === '') this.issue(rf.get('name') ?? r, `${here}.name`, 'is required and must not be empty');
          else if (n !== null && n === name)
            this.issue(
              rf.get('name') ?? r,
              `${here}.name`,
              `is this limit's own name ("${name}"): a limit cannot replace itself`,
            );
          else if (n !== null) replaces.push(n);
        });
      }
    }
    if (this.issues.length > before) return null;
    const limit: YamlLimit = {
      file: this.file,
      line: this.lineOf(keyNode),
      field: at,
      domain,
      fullKey: `${domain}.${path.map(([k, v]) => (v === '' ? k : `${k}_${v}`)).join('.')}`,
      path,
      unit: unlimited ? '' : (unit?.unit ?? ''),
      windowMs,
      requestsPerUnit,
      unlimited,
      name,
      replaces,
      shadowMode,
      detailedMetric,
    };
    this.limits.push(limit);
    return limit;
  }
}
