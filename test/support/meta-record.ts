/**
 * The meta hash's record (src/store/redis/lua/common.lua, above readMeta): field 'c' (exact mode; 'C'
 * in compact mode, whose buckets are fields of the meta hash, and 'c' there an earlier version's) holds five
 * little-endian doubles, n (the log's member counter), a (the count), o / z (bounds on the admit
 * times), e (the instant the key's records expire at, on Redis's clock); NaN for a value absent.
 * Tests that look into a key, or write one as a version before the record did, go through here.
 */
import type { Redis } from 'ioredis';

export interface MetaRecord {
  n: number;
  a?: number;
  o?: number;
  z?: number;
  e?: number;
}

const NAMES = ['n', 'a', 'o', 'z', 'e'] as const;

export function decodeMetaRecord(c: Buffer): MetaRecord {
  if (c.length !== 40) throw new Error(`meta record: 40 bytes expected, got ${c.length}`);
  const out: MetaRecord = { n: 0 };
  NAMES.forEach((name, i) => {
    const v = c.readDoubleLE(8 * i);
    if (!Number.isNaN(v)) out[name] = v;
  });
  return out;
}

export function encodeMetaRecord(r: MetaRecord): Buffer {
  const c = Buffer.alloc(40);
  NAMES.forEach((name, i) => {
    c.writeDoubleLE(r[name] ?? Number.NaN, 8 * i);
  });
  return c;
}

/** A meta hash field that is a compact-mode bucket (its number: digits, '-' first before 1970). */
export const isBucketField = (f: string): boolean => /^-?\d/.test(f);

/**
 * A compact-mode bucket's value as '<admits>:<latest admit time>': stored as a zero byte and two
 * little-endian doubles (window-buckets.lua), or in that text by versions before.
 */
export function bucketText(v: Buffer): string {
  if (v.length === 17 && v[0] === 0) return `${v.readDoubleLE(1)}:${v.readDoubleLE(9)}`;
  return v.toString('utf8');
}

/**
 * A meta hash as read: its record (null if it has none: 'C' if present, else 'c'), the field it was
 * read from, and its other fields as text (compact mode's buckets among them, as bucketText gives them).
 */
export async function readMetaHash(
  client: Redis,
  meta: string,
): Promise<{ record: MetaRecord | null; recordField: 'c' | 'C' | null; fields: Record<string, string> }> {
  const all = await client.hgetallBuffer(meta);
  const recordField = all.C !== undefined ? 'C' : all.c !== undefined ? 'c' : null;
  const fields: Record<string, string> = {};
  let record: MetaRecord | null = null;
  for (const [f, v] of Object.entries(all)) {
    if (f === recordField) record = decodeMetaRecord(v);
    else fields[f] = isBucketField(f) ? bucketText(v) : v.toString('utf8');
  }
  return { record, recordField, fields };
}

/** The record of a meta hash (throws if it has none). */
export async function metaRecord(client: Redis, meta: string): Promise<MetaRecord> {
  const { record } = await readMetaHash(client, meta);
  if (record === null) throw new Error(`meta hash ${meta} has no record 'c' or 'C'`);
  return record;
}

/** Compact mode's buckets, kept in the meta hash: admits and latest admit time of each. */
export async function metaBuckets(client: Redis, meta: string): Promise<{ t: number; admits: number }[]> {
  const { fields } = await readMetaHash(client, meta);
  const out: { t: number; admits: number }[] = [];
  for (const [f, v] of Object.entries(fields)) {
    if (!isBucketField(f)) continue;
    const [c, t] = v.split(':');
    out.push({ t: Number(t), admits: Number(c) });
  }
  return out;
}

/** Drops values from a meta hash's record (as if lost), keeping the others. */
export async function dropFromMetaRecord(
  client: Redis,
  meta: string,
  ...names: (keyof MetaRecord)[]
): Promise<void> {
  const { record, recordField } = await readMetaHash(client, meta);
  if (record === null || recordField === null) throw new Error(`meta hash ${meta} has no record`);
  for (const name of names) delete record[name];
  await client.hset(meta, recordField, encodeMetaRecord(record));
}
