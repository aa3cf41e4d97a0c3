/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * JSON safe to inline in a `<script type="application/json">` element: every
 * `<` is written as `\u003c`, so no value can close the element, and the
 * line separators U+2028/U+2029 are escaped too. `JSON.parse` of the
 * element's text gives back the same value.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** Script source safe to inline in a `<script>` element (no `</script` can end it early). */
export function inlineScript(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1');
}
