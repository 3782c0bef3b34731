/**
 * A tiny well-formedness checker for the markup the report emits: every tag closed in order, attributes
 * quoted, no stray '<' or bare '&' in text. Not a parser; enough to catch a broken renderer.
 */
// Attributes must have quoted values, as XML requires; the HTML the report writes keeps to that too.
const TAG = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
const SPECIAL = /<!--[\s\S]*?-->|<!DOCTYPE[^>]*>|<\?xml[^>]*\?>/y;
const ENTITY = /&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);/y;

export interface CheckOptions {
  /** HTML elements that take no closing tag */
  voidElements?: ReadonlySet<string>;
  /** elements whose content is raw text (HTML style and script) */
  rawText?: ReadonlySet<string>;
}

export function wellFormedErrors(text: string, options: CheckOptions = {}): string[] {
  const errors: string[] = [];
  const stack: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '<') {
      SPECIAL.lastIndex = i;
      if (SPECIAL.test(text)) {
        i = SPECIAL.lastIndex;
        continue;
      }
      TAG.lastIndex = i;
      const m = TAG.exec(text);
      if (!m) {
        errors.push(`bad tag at ${i}: ${text.slice(i, i + 40)}`);
        i++;
        continue;
      }
      const [, closing, name, , selfClosing] = m;
      i = TAG.lastIndex;
      const lower = name!.toLowerCase();
      if (closing) {
        const open = stack.pop();
        if (open !== lower) errors.push(`</${name}> at ${i} closes <${open ?? 'nothing'}>`);
      } else if (!selfClosing && !options.voidElements?.has(lower)) {
        stack.push(lower);
        if (options.rawText?.has(lower)) {
          const end = text.toLowerCase().indexOf(`</${lower}>`, i);
          if (end < 0) errors.push(`<${name}> never closed`);
          else i = end;
        }
      }
      continue;
    }
    if (c === '&') {
      ENTITY.lastIndex = i;
      if (!ENTITY.test(text)) errors.push(`bare & at ${i}: ${text.slice(i, i + 20)}`);
    }
    i++;
  }
  if (stack.length > 0) errors.push(`unclosed: ${stack.join(' > ')}`);
  return errors;
}

export const HTML_OPTIONS: CheckOptions = {
  voidElements: new Set(['meta', 'br', 'hr', 'img', 'link', 'input']),
  rawText: new Set(['style', 'script']),
};
