/**
 * Encodes a record's fields as one JSON string for shuffle files, keeping the values JSON cannot hold:
 * `bigint` (parquet INT64), `Uint8Array` (binary) and `Date` (timestamps) are tagged and restored by
 * {@link decodeFields}.
 */
export function encodeFields(fields: Record<string, unknown>): string {
  // flat records of JSON scalars (most records) need no replacer, which costs a call per value
  if (isFlatJson(fields)) return JSON.stringify(fields);
  return JSON.stringify(fields, function (this: Record<string, unknown>, key: string, value: unknown): unknown {
    const raw = this[key];
    if (typeof raw === 'bigint') return { $bigint: raw.toString() };
    if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
    if (raw instanceof Date) return { $date: raw.getTime() };
    return value;
  });
}

function isFlatJson(fields: Record<string, unknown>): boolean {
  for (const k in fields) {
    const v = fields[k];
    const t = typeof v;
    if (v !== null && t !== 'string' && t !== 'number' && t !== 'boolean' && t !== 'undefined') return false;
  }
  return true;
}

/** Restores what {@link encodeFields} wrote. */
export function decodeFields(text: string): Record<string, unknown> {
  // without a `"$` there is no tagged value, so no reviver (a call per value) is needed
  if (!text.includes('"$')) return JSON.parse(text) as Record<string, unknown>;
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1) {
        if (typeof o['$bigint'] === 'string') return BigInt(o['$bigint']);
        if (typeof o['$bytes'] === 'string') return new Uint8Array(Buffer.from(o['$bytes'], 'base64'));
        if (typeof o['$date'] === 'number') return new Date(o['$date']);
      }
    }
    return value;
  }) as Record<string, unknown>;
}
