/**
 * Encodes a record's fields as one JSON string for shuffle files, keeping the values JSON cannot hold:
 * `bigint` (parquet INT64), `Uint8Array` (binary) and `Date` (timestamps) are tagged and restored by
 * {@link decodeFields}.
 */
export function encodeFields(fields: Record<string, unknown>): string {
  return JSON.stringify(fields, function (this: Record<string, unknown>, key: string, value: unknown): unknown {
    const raw = this[key];
    if (typeof raw === 'bigint') return { $bigint: raw.toString() };
    if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
    if (raw instanceof Date) return { $date: raw.getTime() };
    return value;
  });
}

/** Restores what {@link encodeFields} wrote. */
export function decodeFields(text: string): Record<string, unknown> {
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
