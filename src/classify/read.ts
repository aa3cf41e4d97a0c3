/**
 * Reads a property of an untrusted value. A getter or proxy trap that throws
 * reads as `undefined`, so classifying a hostile value can never throw.
 */
export function readProperty(value: unknown, key: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function'))
    return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Reads a property that must be a string; anything else reads as `undefined`. */
export function readString(value: unknown, key: string): string | undefined {
  const found = readProperty(value, key);
  return typeof found === 'string' ? found : undefined;
}

/** Runs `work`, returning `fallback` if it throws (user callbacks, hostile header objects). */
export function attempt<T>(work: () => T, fallback: T): T {
  try {
    return work();
  } catch {
    return fallback;
  }
}

/** Cuts a string for use in a short reason. */
export function clip(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
