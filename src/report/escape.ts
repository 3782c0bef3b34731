/** Text escaping for the three output formats. Every string that reaches output passes through one of these. */

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe in SVG/HTML text and in double- or single-quoted attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}

/**
 * Safe as inline Markdown text: no emphasis, links, code spans or raw HTML can start from it.
 * Angle brackets and ampersands become entities because GitHub passes raw HTML through.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_[\]#|]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
